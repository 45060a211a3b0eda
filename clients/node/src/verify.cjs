'use strict';
// The offline check of a receipt and its request proof: ReceiptVerifier.swift, ReceiptClaims.swift,
// ReceiptHeader.swift, RequestProof.swift and ReceiptPolicy.swift, answer for answer. Pure in what it answers (keys,
// time and request in, result out); it remembers, per key set, the receipts whose signature verified (a receipt seen
// again costs its proof's one ECDSA verify), which changes only the time an answer takes. Never throws on what a
// client sends: every failure is a reason.
//
// It cannot spend a receipt: within its ten minutes a receipt (and a bound receipt's proof, for one method and path)
// passes every offline check again. For an operation that must happen once, use consume() instead.

const crypto = require('node:crypto');
const base64url = require('./base64url.cjs');
const json = require('./json.cjs');
const { LIMITS } = require('./limits.cjs');
const { keySetOf, readJWK, phoneKey } = require('./keys.cjs');

const ALGORITHM = 'ES256';
const TYPE = 'gatehouse-receipt+jwt';
const ISSUER = 'gatehouse';

/** Every reason, in the order the checks run (`consumed` only ever comes from the server). */
const REASONS = Object.freeze(['malformed', 'signatureInvalid', 'expired', 'wrongEnvironment', 'session:proof', 'unbound', 'unattested', 'consumed']);

/**
 * A policy as the options give it, checked: `{bound, attestation: 'verified' | null, debug}`.
 * @throws {TypeError} for anything else (a programming error, never a client's).
 */
function readPolicy(policy) {
  if (policy === undefined || policy === null) return NO_POLICY;
  if (typeof policy !== 'object' || Array.isArray(policy)) throw new TypeError('policy must be {bound, attestation, debug} or null');
  const { bound = false, attestation = null, debug = false } = policy;
  if (typeof bound !== 'boolean') throw new TypeError('policy.bound must be a boolean');
  if (attestation !== null && attestation !== undefined && attestation !== 'verified') {
    throw new TypeError("policy.attestation must be 'verified' or null");
  }
  if (typeof debug !== 'boolean') throw new TypeError('policy.debug must be a boolean');
  return { bound, attestation: attestation === 'verified' ? 'verified' : null, debug };
}
const NO_POLICY = Object.freeze({ bound: false, attestation: null, debug: false });

/** `nowMs` as unix milliseconds, now when undefined or null. */
function readNow(nowMs) {
  if (nowMs === undefined || nowMs === null) return Date.now();
  const value = Math.trunc(Number(nowMs));
  if (!Number.isFinite(value)) throw new TypeError('nowMs must be unix milliseconds');
  return value;
}

/** A method or path as given; text for anything that is not (nothing a client sends makes this throw). */
function text(value) {
  return typeof value === 'string' ? value : String(value ?? '');
}

// The header of every receipt a key signs is the same text: its judgement, by its base64url segment. Bounded.
const headers = new Map();
const HEADERS_LIMIT = 256;

/** ReceiptHeader.kid(of:): the kid, or the reason the header is refused (`signatureInvalid` for an alg not ES256). */
function judgeHeader(segment) {
  let judged = headers.get(segment);
  if (judged === undefined) {
    judged = readHeader(segment);
    if (headers.size >= HEADERS_LIMIT) headers.clear();
    headers.set(segment, judged);
  }
  return judged;
}

function readHeader(segment) {
  const bytes = base64url.decode(segment);
  if (bytes === null) return { reason: 'malformed', decoded: false };
  let header;
  try {
    header = json.parse(bytes);
  } catch {
    return { reason: 'malformed', decoded: true };
  }
  if (!json.isStrictObject(header)) return { reason: 'malformed', decoded: true };
  if (header.alg !== ALGORITHM) return { reason: 'signatureInvalid', decoded: true };
  if (header.typ !== TYPE || 'crit' in header) return { reason: 'malformed', decoded: true };
  const kid = json.stringMember(header, 'kid', 128);
  if (kid === undefined) return { reason: 'malformed', decoded: true };
  return { kid, decoded: true };
}

/**
 * ReceiptClaims(payload:): the claims as GatehouseReceipts writes them (`ReceiptClaims.json`), with the phone's key,
 * or null when the payload is not a receipt's.
 */
function readClaims(bytes) {
  let object;
  try {
    object = json.parse(bytes);
  } catch {
    return null;
  }
  if (!json.isStrictObject(object)) return null;
  if (object.iss !== ISSUER) return null;
  const env = json.stringMember(object, 'env');
  const sub = json.stringMember(object, 'sub');
  const iat = object.iat;
  const exp = object.exp;
  if (env === undefined || sub === undefined || !json.isInteger(iat) || !json.isInteger(exp)) return null;
  if (!(exp > iat) || exp - iat > LIMITS.receiptLifetimeSeconds) return null;
  let plat;
  if ('plat' in object) {
    plat = json.stringMember(object, 'plat', 16);
    if (plat === undefined) return null;
  }
  const action = object.action;
  if (action !== 'allow' && action !== 'challenge') return null;
  let att = null;
  if ('att' in object && object.att !== null) {
    const value = object.att;
    if (!json.isStrictObject(value)) return null;
    const provider = json.stringMember(value, 'provider', 64);
    const status = json.stringMember(value, 'status', 64);
    if (provider === undefined || status === undefined) return null;
    att = Object.freeze({ provider, status });
  }
  let key = null;
  let cnf;
  if ('cnf' in object) {
    const confirmation = object.cnf;
    if (!json.isStrictObject(confirmation) || !('jwk' in confirmation)) return null;
    const jwk = readJWK(confirmation.jwk, phoneKey);
    if (typeof jwk === 'string') return null;
    key = jwk.keyObject;
    cnf = Object.freeze({ jwk: Object.freeze({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }) });
  }
  const claims = { iss: ISSUER, env, sub, iat: iat + 0, exp: exp + 0 };
  if (plat !== undefined) claims.plat = plat;
  claims.action = action;
  claims.att = att;
  if (cnf !== undefined) claims.cnf = cnf;
  return { claims: Object.freeze(claims), key };
}

const VERIFIED_LIMIT = 10000;

/**
 * ReceiptVerifier.verifySignature: `{signed: {claims, key, kid}}` when the header is ours and the signature verifies
 * under the key it names, else `{reason, unknownKid}`.
 */
function verifySignature(keys, token) {
  const known = keys._verified.get(token);
  if (known !== undefined) return { signed: known };
  if (typeof token !== 'string' || token.length > LIMITS.maxTokenBytes) return { reason: 'malformed' };
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (second < 0 || token.indexOf('.', second + 1) >= 0) return { reason: 'malformed' };
  const header = judgeHeader(token.slice(0, first));
  const payload = base64url.decode(token.slice(first + 1, second));
  const signature = base64url.decode(token.slice(second + 1));
  if (!header.decoded || payload === null || signature === null) return { reason: 'malformed' };
  if (header.reason !== undefined) return { reason: header.reason };
  const key = keys.key(header.kid);
  if (key === undefined) return { reason: 'signatureInvalid', unknownKid: true };
  if (signature.length !== 64) return { reason: 'signatureInvalid' };
  if (!ecdsaVerify(key.keyObject, Buffer.from(token.slice(0, second), 'latin1'), signature, 'ieee-p1363')) {
    return { reason: 'signatureInvalid' };
  }
  const read = readClaims(payload);
  if (read === null) return { reason: 'malformed' };
  const signed = { claims: read.claims, key: read.key, kid: header.kid };
  remember(keys._verified, token, signed);
  return { signed };
}

/** Keeps `signed` under `token`: past the limit the expired go, then, if need be, the half that expires first. */
function remember(memory, token, signed) {
  if (memory.size >= VERIFIED_LIMIT) {
    const now = Math.trunc(Date.now() / 1000);
    for (const [kept, entry] of memory) if (entry.claims.exp <= now) memory.delete(kept);
    if (memory.size >= VERIFIED_LIMIT) {
      const entries = [...memory].sort((a, b) => b[1].claims.exp - a[1].claims.exp).slice(0, VERIFIED_LIMIT / 2);
      memory.clear();
      for (const [kept, entry] of entries) memory.set(kept, entry);
    }
  }
  memory.set(token, signed);
}

function ecdsaVerify(key, message, signature, dsaEncoding) {
  try {
    return crypto.verify('sha256', message, { key, dsaEncoding }, signature);
  } catch {
    return false;
  }
}

/**
 * RequestProof(header:): `{timestamp, signature}` for `t=<unix ms>,s=<base64url signature>` exactly (that order, no
 * spaces, no padding, t of 1 to 15 digits without a leading zero, s 64 bytes or a DER sequence of at most 72), else
 * null.
 */
function readProof(header) {
  if (typeof header !== 'string' || header.length > LIMITS.maxProofBytes) return null;
  // Anything outside ASCII fails the shape below, so the UTF-8 byte limit needs no separate count.
  const comma = header.indexOf(',');
  if (comma < 0 || !header.startsWith('t=') || !header.startsWith('s=', comma + 1) || header.indexOf(',', comma + 1) >= 0) return null;
  const digits = header.slice(2, comma);
  if (digits.length < 1 || digits.length > 15 || !/^[0-9]+$/.test(digits) || (digits.length > 1 && digits[0] === '0')) return null;
  const signature = base64url.decode(header.slice(comma + 3));
  if (signature === null || !(signature.length === 64 || (signature.length <= 72 && signature[0] === 0x30))) return null;
  return { timestamp: Number(digits), digits, signature };
}

/** Whether `proof` is a fresh signature by `key` over `<t>\n<METHOD>\n<pathAndQuery>`. */
function proofHolds(proof, key, method, pathAndQuery, nowMs) {
  const read = readProof(proof);
  if (read === null) return false;
  const age = nowMs - read.timestamp;
  if (age > LIMITS.proofMaxAgeMs || age < -LIMITS.proofMaxAheadMs) return false;
  const message = Buffer.from(read.digits + '\n' + method + '\n' + pathAndQuery, 'utf8');
  const signature = read.signature;
  if (signature.length === 64 && ecdsaVerify(key, message, signature, 'ieee-p1363')) return true;
  // A DER signature is 64 bytes long too, once in about 2^50.
  return signature[0] === 0x30 && ecdsaVerify(key, message, signature, 'der');
}

/** ReceiptPolicy.violations(of:): `unbound`, `unattested`, in that order. */
function violations(policy, claims) {
  const reasons = [];
  if (policy.bound && claims.cnf === undefined) reasons.push('unbound');
  if (policy.attestation === 'verified') {
    const att = claims.att;
    const meets = att !== null && att.status === 'verified' && (policy.debug || att.provider !== 'debug');
    if (!meets) reasons.push('unattested');
  }
  return reasons;
}

/** A Verification: valid, the reasons in order, and what the signed claims say (null before a signature verified). */
function verification(reasons, claims) {
  return {
    valid: reasons.length === 0,
    reasons,
    claims,
    action: claims === null ? null : claims.action,
    bound: claims !== null && claims.cnf !== undefined,
    platform: claims === null || claims.plat === undefined ? null : claims.plat,
  };
}

/**
 * ReceiptVerifier.verify: the signature first (a token whose signature does not verify reports only that, with no
 * claims), then every failing check: `expired`, `wrongEnvironment`, `session:proof` for a bound receipt, then the
 * policy's `unbound`, `unattested`. Answers `{verification, unknownKid}`.
 */
function verifyWithKeys(keys, token, environment, method, pathAndQuery, proof, policy, nowMs) {
  const checked = verifySignature(keys, token);
  if (checked.signed === undefined) return { verification: verification([checked.reason], null), unknownKid: checked.unknownKid === true };
  const { claims, key } = checked.signed;
  const reasons = [];
  const now = Math.trunc(nowMs / 1000);
  if (now >= claims.exp || claims.iat > now + LIMITS.issuedAtLeewaySeconds) reasons.push('expired');
  if (!json.sameString(claims.env, environment)) reasons.push('wrongEnvironment');
  if (key !== null && !proofHolds(proof, key, method, pathAndQuery, nowMs)) reasons.push('session:proof');
  for (const reason of violations(policy, claims)) reasons.push(reason);
  return { verification: verification(reasons, claims), unknownKid: false };
}

/** Whether `jwks` is a key source (a JWKSSource, or anything with an async get()) rather than keys. */
function isSource(jwks) {
  return typeof jwks === 'object' && jwks !== null && typeof jwks.get === 'function';
}

/**
 * Checks a receipt (`antibot-token`) for the call `method pathAndQuery` that came with `proof` (`antibot-pop`).
 * Synchronous when `jwks` is keys (a JWKS object, its JSON text, or a KeySet); a Promise when it is a JWKSSource
 * (fetched again, at most once in 30 s, for a kid it does not know).
 */
function verifySessionToken(token, options) {
  const { jwks, environment, method, pathAndQuery, proof = null, policy = null, nowMs } = options ?? {};
  if (typeof environment !== 'string' || environment.length === 0) throw new TypeError('environment must be the environment id (env_…)');
  const rules = readPolicy(policy);
  const now = readNow(nowMs);
  const call = [text(method), text(pathAndQuery)];
  if (isSource(jwks)) return verifyWithSource(jwks, token, environment, call[0], call[1], proof, rules, now);
  return verifyWithKeys(keySetOf(jwks), token, environment, call[0], call[1], proof, rules, now).verification;
}

async function verifyWithSource(source, token, environment, method, pathAndQuery, proof, policy, nowMs) {
  const keys = keySetOf(await source.get());
  const checked = verifyWithKeys(keys, token, environment, method, pathAndQuery, proof, policy, nowMs);
  if (!checked.unknownKid || typeof source.refreshForUnknownKid !== 'function') return checked.verification;
  const fresh = keySetOf(await source.refreshForUnknownKid());
  if (fresh === keys) return checked.verification;
  return verifyWithKeys(fresh, token, environment, method, pathAndQuery, proof, policy, nowMs).verification;
}

/**
 * Whether `proof` (`t=<unix ms>,s=<signature>`) is a signature by `jwk` (a receipt's `cnf.jwk`) over this call,
 * at most 2 minutes old and at most 10 seconds ahead of `nowMs`. False for an unreadable proof or key.
 */
function verifyRequestProof(proof, options) {
  const { jwk, method, pathAndQuery, nowMs } = options ?? {};
  const now = readNow(nowMs);
  const key = readJWK(jwk, phoneKey);
  if (typeof key === 'string') return false;
  return proofHolds(proof, key.keyObject, text(method), text(pathAndQuery), now);
}

module.exports = {
  REASONS,
  verifySessionToken,
  verifyRequestProof,
  verifyWithKeys,
  readPolicy,
  readNow,
  isSource,
  verification,
};
