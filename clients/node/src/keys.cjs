'use strict';
// P-256 public keys as JWKs (PublicJWK.swift) and JSON Web Key Sets (JWKS.swift), read as strictly as
// GatehouseReceipts reads them.

const crypto = require('node:crypto');
const base64url = require('./base64url.cjs');
const json = require('./json.cjs');
const { LIMITS } = require('./limits.cjs');

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** Why a JWKS or a JWK handed to the library cannot be used (never raised for what a client sends). */
class ReceiptKeyError extends Error {
  constructor(message, kind = 'key') {
    super(message);
    this.name = 'ReceiptKeyError';
    /** `key` (not a JWKS of EC P-256 signing keys) or `tooLarge` (over the size or key-count limit). */
    this.kind = kind;
  }
}

/**
 * Reads a JWK object as PublicJWK(json:) does; returns {kid, x, y, keyObject} or a message saying why not.
 * Members other than kty, crv, x, y, kid, use, alg are ignored, save `d` (private key material). `importer` makes
 * the key of the point (importPoint, or phoneKey for a receipt's cnf.jwk).
 */
function readJWK(value, importer = importPoint) {
  if (!json.isStrictObject(value)) return 'a JWK must be a JSON object with unique member names';
  if (value.kty !== 'EC' || value.crv !== 'P-256') return 'a JWK must be kty EC, crv P-256';
  if ('d' in value) return 'a JWK here must not hold private key material (d)';
  const x = base64url.decode(value.x);
  const y = base64url.decode(value.y);
  if (x === null || x.length !== 32 || y === null || y.length !== 32) return 'a JWK needs x and y as base64url of 32 bytes each';
  if ('use' in value && value.use !== 'sig') return "a JWK's use must be sig";
  if ('alg' in value && value.alg !== 'ES256') return "a JWK's alg must be ES256";
  let kid = null;
  if ('kid' in value) {
    const text = value.kid;
    if (typeof text !== 'string' || text.length === 0 || json.utf8Length(text) > 128) return "a JWK's kid must be a string of 1 to 128 bytes";
    kid = text;
  }
  const keyObject = importer(value.x, value.y);
  if (keyObject === null) return "a JWK's point is not on P-256";
  return { kid, x: value.x, y: value.y, keyObject };
}

/** The key for the point (x, y), both canonical base64url of 32 bytes; null when it is not on P-256. */
function importPoint(x, y) {
  try {
    // OpenSSL checks the point is on the curve and its coordinates below p, as Swift's point import does.
    return crypto.createPublicKey({ key: { kty: 'EC', crv: 'P-256', x, y }, format: 'jwk' });
  } catch {
    return null;
  }
}

// Phone keys (a receipt's cnf.jwk) parsed before, by x and y: importing a point costs about as much as a
// signature check, and a phone signs many calls with one key. Bounded; cleared whole when full.
const phoneKeys = new Map();
const PHONE_KEYS_LIMIT = 4096;

/** The key for the cnf point (x, y), from the memory of recent phone keys when it is there. */
function phoneKey(x, y) {
  const id = x + '.' + y;
  let key = phoneKeys.get(id);
  if (key === undefined) {
    key = importPoint(x, y);
    if (phoneKeys.size >= PHONE_KEYS_LIMIT) phoneKeys.clear();
    phoneKeys.set(id, key);
  }
  return key;
}

/**
 * A JWKS read and checked: its keys by kid, each imported once. Immutable; what `JWKSSource.get()` answers and what
 * `verifySessionToken` takes besides a JWKS object or its JSON text.
 */
class KeySet {
  /** @param {Array<{kid: string, x: string, y: string, keyObject: crypto.KeyObject}>} keys */
  constructor(keys) {
    this._keys = keys;
    this._byKid = new Map();
    for (const key of keys) this._byKid.set(key.kid, key);
    // Swift compares kids by canonical equivalence; two ASCII strings are equivalent only when equal.
    this._asciiKids = keys.every((key) => ASCII.test(key.kid));
    /** Receipts whose signature verified under this set, by token (see verify.cjs). */
    this._verified = new Map();
    Object.freeze(this);
  }

  /** The kids, in the order of the JWKS. */
  get kids() {
    return this._keys.map((key) => key.kid);
  }

  /** The number of keys. */
  get size() {
    return this._keys.length;
  }

  /** The key named `kid` (compared as Swift compares strings), or undefined. */
  key(kid) {
    const exact = this._byKid.get(kid);
    if (exact !== undefined || (this._asciiKids && ASCII.test(kid))) return exact;
    return this._keys.find((key) => json.sameString(key.kid, kid));
  }

  /** `{"keys": [...]}` as GatehouseReceipts writes it. */
  toJSON() {
    return { keys: this._keys.map((key) => ({ kty: 'EC', crv: 'P-256', x: key.x, y: key.y, kid: key.kid, use: 'sig', alg: 'ES256' })) };
  }
}

/**
 * Reads a JWKS (JSON text, UTF-8 bytes, or a parsed object) as JWKS(bytes:) does.
 * @throws {ReceiptKeyError} over the byte or key limit, or when it is not a JWKS of EC P-256 signing keys each with
 *   a unique kid.
 */
function parseJWKS(input) {
  let bytes;
  if (typeof input === 'string') bytes = Buffer.from(input, 'utf8');
  else if (input instanceof Uint8Array) bytes = input;
  else if (json.isObject(input)) bytes = Buffer.from(JSON.stringify(input), 'utf8');
  else throw new ReceiptKeyError('jwks must be a JWKS object, its JSON text, a KeySet or a JWKSSource');
  if (bytes.length > LIMITS.maxKeySetBytes) throw new ReceiptKeyError(`the JWKS is over ${LIMITS.maxKeySetBytes} bytes`, 'tooLarge');
  let document;
  try {
    document = json.parse(bytes);
  } catch {
    throw new ReceiptKeyError('the JWKS is not JSON');
  }
  if (!json.isObject(document)) throw new ReceiptKeyError('the JWKS is not a JSON object');
  if (!json.isStrictObject(document)) throw new ReceiptKeyError('the JWKS names a member twice');
  const list = document.keys;
  if (!Array.isArray(list)) throw new ReceiptKeyError('the JWKS needs keys as an array');
  if (list.length > LIMITS.maxKeys) throw new ReceiptKeyError(`the JWKS has over ${LIMITS.maxKeys} keys`, 'tooLarge');
  const keys = [];
  for (const entry of list) {
    const key = readJWK(entry);
    if (typeof key === 'string') throw new ReceiptKeyError(key);
    if (key.kid === null) throw new ReceiptKeyError('every key of the JWKS needs a kid');
    if (keys.some((other) => json.sameString(other.kid, key.kid))) throw new ReceiptKeyError('the JWKS names a kid twice');
    keys.push(key);
  }
  return new KeySet(keys);
}

// JWKS objects and texts handed to verifySessionToken, parsed before, by their JSON text (an object is serialized:
// one changed in place is read afresh). Bounded; cleared whole when full.
const parsedSets = new Map();
const PARSED_SETS_LIMIT = 16;

/** The KeySet of a JWKS given as a KeySet, an object or JSON text (parsed once per distinct text). */
function keySetOf(jwks) {
  if (jwks instanceof KeySet) return jwks;
  let text;
  if (typeof jwks === 'string') text = jwks;
  else if (json.isObject(jwks)) text = JSON.stringify(jwks);
  else throw new ReceiptKeyError('jwks must be a JWKS object, its JSON text, a KeySet or a JWKSSource');
  let set = parsedSets.get(text);
  if (set === undefined) {
    set = parseJWKS(text);
    if (parsedSets.size >= PARSED_SETS_LIMIT) parsedSets.clear();
    parsedSets.set(text, set);
  }
  return set;
}

module.exports = { ReceiptKeyError, KeySet, parseJWKS, keySetOf, readJWK, phoneKey };
