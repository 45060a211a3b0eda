// verifySessionToken and verifyRequestProof beyond the shared vectors: the strictness GatehouseReceipts has that the
// vectors do not spell out case by case (JSON read strictly, names compared as Swift compares strings, sizes,
// base64url), the policy's and the options' checks, and answers that never throw.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { createRequire } from 'node:module';
import { verifySessionToken, verifyRequestProof, parseJWKS, ReceiptKeyError, LIMITS } from '../index.js';
import { issuer, phone, claims, b64url, b64json } from './support/receipts.mjs';

const ENV = 'env_unit0000000000000';
const NOW = 1_796_000_000_000;
const IAT = NOW / 1000 - 60;
const key = issuer();

function verify(token, options = {}) {
  return verifySessionToken(token, { jwks: key.jwks, environment: ENV, method: 'GET', pathAndQuery: '/api/orders', proof: null, nowMs: NOW, ...options });
}
const reasons = (token, options) => verify(token, options).reasons;
/** A token whose payload is this JSON text exactly, signed. */
const signedText = (text) => key.sign(text);

describe('claims read strictly', () => {
  test('a valid receipt, its claims as GatehouseReceipts writes them', () => {
    const answer = verify(key.sign(claims(ENV, IAT, { extra: { anything: [1, 2] }, att: { provider: 'app-attest', status: 'verified' } })));
    assert.deepEqual(answer.reasons, []);
    assert.equal(answer.valid, true);
    assert.deepEqual({ ...answer.claims }, { iss: 'gatehouse', env: ENV, sub: 'req_test', iat: IAT, exp: IAT + 600, plat: 'ios', action: 'allow', att: { provider: 'app-attest', status: 'verified' } });
    assert.ok(Object.isFrozen(answer.claims));
    assert.equal(answer.action, 'allow');
    assert.equal(answer.platform, 'ios');
    assert.equal(answer.bound, false);
  });

  test('a member named twice is refused, also when the two spellings are canonically equivalent', () => {
    const base = JSON.stringify(claims(ENV, IAT)).slice(0, -1);
    assert.deepEqual(reasons(signedText(base + ',"sub":"again"}')), ['malformed']);
    assert.deepEqual(reasons(signedText(base + ',"\u00e9":1,"e\u0301":2}')), ['malformed'], 'é composed and decomposed');
    assert.deepEqual(reasons(signedText(base + ',"K":1,"\u212a":2}')), ['malformed'], 'K and the Kelvin sign');
    assert.deepEqual(reasons(signedText(base + ',"\\u00e9":1,"e\\u0301":2}')), ['malformed'], 'written as escapes');
    assert.deepEqual(reasons(signedText(base + ',"a":1,"b":2}')), []);
  });

  test('a name twice inside an unknown claim is not read strictly (as in Swift)', () => {
    const base = JSON.stringify(claims(ENV, IAT)).slice(0, -1);
    assert.deepEqual(reasons(signedText(base + ',"x":{"a":1,"a":2}}')), []);
  });

  test('a duplicate inside att or cnf is refused', () => {
    const p = phone();
    const att = JSON.stringify(claims(ENV, IAT)).replace('"att":null', '"att":{"provider":"debug","status":"verified","status":"x"}');
    assert.deepEqual(reasons(signedText(att)), ['malformed']);
    const jwk = JSON.stringify(p.jwk).slice(0, -1) + ',"x":' + JSON.stringify(p.jwk.x) + '}';
    assert.deepEqual(reasons(signedText(JSON.stringify(claims(ENV, IAT)).slice(0, -1) + `,"cnf":{"jwk":${jwk}}}`)), ['malformed']);
  });

  test('__proto__ and constructor as claim names are only names', () => {
    const base = JSON.stringify(claims(ENV, IAT)).slice(0, -1);
    const answer = verify(signedText(base + ',"__proto__":{"polluted":1},"constructor":1}'));
    assert.deepEqual(answer.reasons, []);
    assert.equal({}.polluted, undefined);
  });

  test('numbers: whole numbers written with a fraction or exponent are integers; 1.5 is not; overflow is not JSON', () => {
    const text = (iat, exp) => JSON.stringify(claims(ENV, 0)).replace('"iat":0', `"iat":${iat}`).replace('"exp":600', `"exp":${exp}`);
    assert.deepEqual(reasons(signedText(text(`${IAT}.0`, `${IAT + 600}`))), []);
    assert.deepEqual(reasons(signedText(text(`${IAT / 10}e1`, `${IAT + 600}`))), []);
    assert.deepEqual(reasons(signedText(text(`${IAT}.5`, `${IAT + 600}`))), ['malformed']);
    assert.deepEqual(reasons(signedText(text(`"${IAT}"`, `${IAT + 600}`))), ['malformed']);
    const base = JSON.stringify(claims(ENV, IAT)).slice(0, -1);
    assert.deepEqual(reasons(signedText(base + ',"x":1e400}')), ['malformed'], 'a number out of range is not JSON');
    assert.deepEqual(reasons(signedText(base + ',"x":1e-400}')), [], 'an underflow reads as 0, as in Swift 6.3');
    assert.deepEqual(reasons(signedText(base + ',"x":01}')), ['malformed']);
    assert.deepEqual(reasons(signedText(base + ',"x":-}')), ['malformed']);
    assert.deepEqual(reasons(signedText(base + ',"x":1.}')), ['malformed']);
  });

  test('exp follows iat by 1 to 600 seconds', () => {
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { exp: IAT + 600 }))), []);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { exp: IAT + 601 }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { exp: IAT }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { exp: IAT + 1 }))), ['expired']);
  });

  test('strings: sizes in UTF-8 bytes, never empty', () => {
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { plat: 'x'.repeat(16) }))), []);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { plat: 'x'.repeat(17) }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { plat: 'é'.repeat(8) }))), []);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { plat: 'é'.repeat(9) }))), ['malformed'], '18 bytes');
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { plat: '' }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { plat: null }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { sub: 'x'.repeat(256) }))), []);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { sub: 'x'.repeat(257) }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { att: { provider: 'p'.repeat(64), status: 'verified' } }))), []);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { att: { provider: 'p'.repeat(65), status: 'verified' } }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { att: 'verified' }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { action: 'Allow' }))), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { iss: 'gatehouse ' }))), ['malformed']);
  });

  test('text: invalid UTF-8, unpaired surrogates, control characters, a BOM, nesting past 64 are not JSON', () => {
    const base = JSON.stringify(claims(ENV, IAT)).slice(0, -1);
    const signRaw = (payloadBytes) => {
      const input = b64json({ alg: 'ES256', kid: key.kid, typ: 'gatehouse-receipt+jwt' }) + '.' + b64url(payloadBytes);
      return input + '.' + b64url(crypto.sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }));
    };
    assert.deepEqual(reasons(signRaw(Buffer.concat([Buffer.from(base + ',"x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]))), ['malformed']);
    assert.deepEqual(reasons(signRaw(Buffer.concat([Buffer.from(base + ',"x":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]))), ['malformed'], 'a surrogate in UTF-8');
    assert.deepEqual(reasons(signRaw(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(base + '}')]))), ['malformed'], 'a BOM');
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":"\\ud800"}'))), ['malformed']);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":"\\udc00\\ud800"}'))), ['malformed']);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":"\\ud83d\\ude00"}'))), []);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":"a\tb"}'))), ['malformed']);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":"\\x"}'))), ['malformed']);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":"\u00e9\u0000"}'))), ['malformed']);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + '} '))), []);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + '}\u00a0'))), ['malformed'], 'only JSON whitespace around');
    assert.deepEqual(reasons(signRaw(Buffer.from(base + '}}'))), ['malformed']);
    // The payload object is depth 0; a value at depth 64 is one too deep.
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":' + '['.repeat(63) + ']'.repeat(63) + '}'))), []);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":' + '['.repeat(64) + ']'.repeat(64) + '}'))), ['malformed']);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":' + '['.repeat(62) + '1' + ']'.repeat(62) + '}'))), []);
    assert.deepEqual(reasons(signRaw(Buffer.from(base + ',"x":' + '['.repeat(63) + '1' + ']'.repeat(63) + '}'))), ['malformed']);
  });

  test('cnf: a P-256 public key on the curve, without private material, use sig and alg ES256 when named', () => {
    const p = phone();
    const bound = (jwk) => key.sign(claims(ENV, IAT, { cnf: { jwk } }));
    const proof = p.proof('GET', '/api/orders', NOW);
    assert.deepEqual(reasons(bound(p.jwk), { proof }), []);
    assert.deepEqual(reasons(bound({ ...p.jwk, kid: 'k', use: 'sig', alg: 'ES256', other: 1 }), { proof }), []);
    assert.deepEqual(reasons(bound({ ...p.jwk, use: 'enc' }), { proof }), ['malformed']);
    assert.deepEqual(reasons(bound({ ...p.jwk, alg: 'ES384' }), { proof }), ['malformed']);
    assert.deepEqual(reasons(bound({ ...p.jwk, kid: '' }), { proof }), ['malformed']);
    assert.deepEqual(reasons(bound({ ...p.jwk, d: p.jwk.x }), { proof }), ['malformed']);
    assert.deepEqual(reasons(bound({ ...p.jwk, d: null }), { proof }), ['malformed']);
    assert.deepEqual(reasons(bound({ ...p.jwk, crv: 'P-384' }), { proof }), ['malformed']);
    const y = Buffer.from(p.jwk.y, 'base64url');
    y[31] ^= 1;
    assert.deepEqual(reasons(bound({ ...p.jwk, y: b64url(y) }), { proof }), ['malformed'], 'off the curve');
    assert.deepEqual(reasons(bound({ ...p.jwk, x: p.jwk.x + 'A' }), { proof }), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { cnf: null })), { proof }), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { cnf: {} })), { proof }), ['malformed']);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { cnf: { jwk: null } })), { proof }), ['malformed']);
    const answer = verify(bound({ ...p.jwk, kid: 'k', use: 'sig' }), { proof });
    assert.deepEqual({ ...answer.claims.cnf.jwk }, p.jwk, 'cnf.jwk as Swift writes it: kty, crv, x, y');
    assert.equal(answer.bound, true);
  });
});

describe('header and signature', () => {
  const body = claims(ENV, IAT);
  test('alg not ES256 is a bad signature; typ, crit and kid wrong are malformed', () => {
    const h = { alg: 'ES256', kid: key.kid, typ: 'gatehouse-receipt+jwt' };
    assert.deepEqual(reasons(key.sign(body, { header: { kid: key.kid, typ: h.typ } })), ['signatureInvalid']);
    assert.deepEqual(reasons(key.sign(body, { header: { ...h, alg: 'es256' } })), ['signatureInvalid']);
    assert.deepEqual(reasons(key.sign(body, { header: { ...h, typ: 'JWT' } })), ['malformed']);
    assert.deepEqual(reasons(key.sign(body, { header: { ...h, crit: [] } })), ['malformed']);
    assert.deepEqual(reasons(key.sign(body, { header: { ...h, kid: '' } })), ['malformed']);
    assert.deepEqual(reasons(key.sign(body, { header: { ...h, kid: 7 } })), ['malformed']);
    assert.deepEqual(reasons(key.sign(body, { header: [h] })), ['malformed']);
    assert.deepEqual(reasons(key.sign(body, { header: { ...h, extra: { a: 1 } } })), []);
  });

  test('kids compare as Swift compares strings: by canonical equivalence', () => {
    const kelvin = issuer('K1');
    const token = kelvin.sign(body, { header: { alg: 'ES256', kid: '\u212a1', typ: 'gatehouse-receipt+jwt' } });
    assert.deepEqual(reasons(token, { jwks: kelvin.jwks }), []);
    const composed = issuer('caf\u00e9');
    const decomposed = composed.sign(body, { header: { alg: 'ES256', kid: 'cafe\u0301', typ: 'gatehouse-receipt+jwt' } });
    assert.deepEqual(reasons(decomposed, { jwks: composed.jwks }), []);
    assert.throws(() => parseJWKS({ keys: [kelvin.jwk, { ...composed.jwk, kid: '\u212a1' }] }), ReceiptKeyError, 'one kid twice');
  });

  test('the environment compares by canonical equivalence too', () => {
    assert.deepEqual(reasons(key.sign(claims('env_caf\u00e9', IAT)), { environment: 'env_cafe\u0301' }), []);
    assert.deepEqual(reasons(key.sign(claims('env_a', IAT)), { environment: 'env_A' }), ['wrongEnvironment']);
  });

  test('base64url only in its one spelling', () => {
    const token = key.sign(body);
    const [h, p, s] = token.split('.');
    assert.deepEqual(reasons(`${h}.${p}.${s}`), []);
    assert.deepEqual(reasons(`${h}=.${p}.${s}`), ['malformed']);
    assert.deepEqual(reasons(`${h}.${p} .${s}`), ['malformed']);
    const extra = 'A'.repeat((5 - (p.length % 4)) % 4);
    assert.equal((p.length + extra.length) % 4, 1);
    assert.deepEqual(reasons(`${h}.${p}${extra}.${s}`), ['malformed'], '4n+1 characters');
    // The signature is 64 bytes: 86 characters, the last carrying 4 unused bits.
    const last = s.at(-1);
    const sibling = 'AEIMQUYcgkosw048'.includes(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : last;
    if (sibling !== last) assert.deepEqual(reasons(`${h}.${p}.${s.slice(0, -1)}${sibling}`), ['malformed'], 'non-zero unused bits');
    assert.deepEqual(reasons(`${h}.${p}.${s}.`), ['malformed']);
    assert.deepEqual(reasons(`${h}..${s}`), ['signatureInvalid'], 'an empty segment is the empty byte string');
  });

  test('a signature that is not 64 bytes, or over other bytes, or by another key, is a bad signature', () => {
    const other = issuer(key.kid);
    assert.deepEqual(reasons(other.sign(body)), ['signatureInvalid']);
    assert.deepEqual(reasons(key.sign(body, { signature: Buffer.alloc(64) })), ['signatureInvalid']);
    assert.deepEqual(reasons(key.sign(body, { signature: Buffer.alloc(63, 1) })), ['signatureInvalid']);
    const der = crypto.sign('sha256', Buffer.from('x'), { key: key.privateKey, dsaEncoding: 'der' });
    assert.deepEqual(reasons(key.sign(body, { signature: der })), ['signatureInvalid']);
    // High S (n − s) is a valid ECDSA signature: OpenSSL takes it, as GatehouseReceipts' OpenSSL does.
    const token = key.sign(body);
    const raw = Buffer.from(token.split('.')[2], 'base64url');
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
    const s = BigInt('0x' + raw.subarray(32).toString('hex'));
    const high = Buffer.concat([raw.subarray(0, 32), Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex')]);
    assert.deepEqual(reasons(token.split('.').slice(0, 2).join('.') + '.' + b64url(high)), []);
  });

  test('a signed payload that is not a receipt is malformed, with no claims', () => {
    const answer = verify(signedText('[]'));
    assert.deepEqual(answer.reasons, ['malformed']);
    assert.equal(answer.claims, null);
  });

  test('over 8192 bytes is malformed', () => {
    const padded = key.sign(claims(ENV, IAT, { pad: 'x'.repeat(5800) }));
    assert.ok(padded.length <= LIMITS.maxTokenBytes);
    assert.deepEqual(reasons(padded), []);
    assert.deepEqual(reasons(key.sign(claims(ENV, IAT, { pad: 'x'.repeat(6200) }))), ['malformed']);
  });
});

describe('times', () => {
  test('expired from exp on, and when issued more than 60 s ahead', () => {
    const token = key.sign(claims(ENV, IAT));
    assert.deepEqual(reasons(token, { nowMs: (IAT + 600) * 1000 - 1 }), []);
    assert.deepEqual(reasons(token, { nowMs: (IAT + 600) * 1000 }), ['expired']);
    assert.deepEqual(reasons(token, { nowMs: (IAT - 60) * 1000 }), []);
    assert.deepEqual(reasons(token, { nowMs: (IAT - 60) * 1000 + 999 }), []);
    assert.deepEqual(reasons(token, { nowMs: (IAT - 60) * 1000 - 1 }), ['expired'], 'whole seconds: 61 s ahead');
  });

  test('nowMs undefined means now', () => {
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(reasons(key.sign(claims(ENV, now - 5)), { nowMs: undefined }), []);
  });
});

describe('proofs', () => {
  const p = phone();
  const token = key.sign(claims(ENV, IAT, { cnf: { jwk: p.jwk } }));
  const holds = (proof, method = 'GET', path = '/api/orders', nowMs = NOW) => reasons(token, { proof, method, pathAndQuery: path, nowMs }).length === 0;

  test('raw and DER, for this method and path as sent, 2 minutes old to 10 seconds ahead', () => {
    assert.ok(holds(p.proof('GET', '/api/orders', NOW)));
    assert.ok(holds(p.proof('GET', '/api/orders', NOW, { der: true })));
    assert.ok(holds(p.proof('GET', '/api/orders', NOW - 120000)));
    assert.ok(!holds(p.proof('GET', '/api/orders', NOW - 120001)));
    assert.ok(holds(p.proof('GET', '/api/orders', NOW + 10000)));
    assert.ok(!holds(p.proof('GET', '/api/orders', NOW + 10001)));
    assert.ok(!holds(p.proof('POST', '/api/orders', NOW)));
    assert.ok(!holds(p.proof('get', '/api/orders', NOW), 'GET'));
    assert.ok(holds(p.proof('GET', '/api/caf\u00e9?q=\u00fc', NOW), 'GET', '/api/caf\u00e9?q=\u00fc'), 'UTF-8 as sent');
    assert.ok(!holds(null));
    assert.ok(!holds(''));
  });

  test('the header shape exactly', () => {
    const good = p.proof('GET', '/api/orders', NOW);
    const sig = good.split(',s=')[1];
    for (const bad of [`s=${sig},t=${NOW}`, `t=${NOW}, s=${sig}`, `t=${NOW},s=${sig},`, `t=0${NOW},s=${sig}`, `t=+${NOW},s=${sig}`,
      `t=${NOW},s=${sig}=`, `t=${NOW},s=${sig.replace(/-/g, '+')}`, `T=${NOW},s=${sig}`, `t=1${'0'.repeat(15)},s=${sig}`, `t=,s=${sig}`, `t=${NOW}`]) {
      if (bad !== good) assert.ok(!holds(bad), bad);
    }
    assert.ok(!holds(good + 'x'.repeat(600)));
  });

  test('a DER signature of at most 72 bytes, canonical', () => {
    const message = Buffer.from(`${NOW}\nGET\n/api/orders`);
    const der = crypto.sign('sha256', message, { key: p.privateKey, dsaEncoding: 'der' });
    assert.ok(holds(`t=${NOW},s=${b64url(der)}`));
    // A DER length written in long form is not DER: OpenSSL refuses it, in Swift as here.
    const longForm = Buffer.concat([Buffer.from([0x30, 0x81, der[1]]), der.subarray(2)]);
    assert.ok(!holds(`t=${NOW},s=${b64url(longForm)}`));
    assert.ok(!holds(`t=${NOW},s=${b64url(Buffer.concat([der, Buffer.from([0])]))}`), 'a trailing byte');
    assert.ok(!holds(`t=${NOW},s=${b64url(Buffer.alloc(73, 0x30))}`));
    assert.ok(!holds(`t=${NOW},s=${b64url(Buffer.alloc(70, 0x31))}`));
  });

  test('verifyRequestProof: the same check by a cnf JWK; false for a key it cannot read', () => {
    const proof = p.proof('POST', '/api/pay?x=1', NOW);
    assert.equal(verifyRequestProof(proof, { jwk: p.jwk, method: 'POST', pathAndQuery: '/api/pay?x=1', nowMs: NOW }), true);
    assert.equal(verifyRequestProof(proof, { jwk: p.jwk, method: 'POST', pathAndQuery: '/api/pay?x=2', nowMs: NOW }), false);
    assert.equal(verifyRequestProof(proof, { jwk: p.jwk, method: 'POST', pathAndQuery: '/api/pay?x=1', nowMs: NOW + 120001 }), false);
    assert.equal(verifyRequestProof(proof, { jwk: { ...p.jwk, d: 'x' }, method: 'POST', pathAndQuery: '/api/pay?x=1', nowMs: NOW }), false);
    assert.equal(verifyRequestProof(proof, { jwk: null, method: 'POST', pathAndQuery: '/api/pay?x=1', nowMs: NOW }), false);
    assert.equal(verifyRequestProof(42, { jwk: p.jwk, method: 'POST', pathAndQuery: '/api/pay?x=1', nowMs: NOW }), false);
  });
});

describe('policy and options', () => {
  test('policy is checked; a bad one is a programming error', () => {
    const token = key.sign(claims(ENV, IAT));
    assert.deepEqual(reasons(token, { policy: { bound: true, attestation: 'verified' } }), ['unbound', 'unattested']);
    assert.deepEqual(reasons(token, { policy: {} }), []);
    assert.throws(() => verify(token, { policy: { attestation: 'yes' } }), TypeError);
    assert.throws(() => verify(token, { policy: { bound: 'true' } }), TypeError);
    assert.throws(() => verify(token, { environment: undefined }), TypeError);
    assert.throws(() => verify(token, { jwks: undefined }), ReceiptKeyError);
  });

  test('the JWKS as an object, its text, bytes or a KeySet; bad ones refused whole', () => {
    const token = key.sign(claims(ENV, IAT));
    assert.deepEqual(reasons(token, { jwks: JSON.stringify(key.jwks) }), []);
    assert.deepEqual(reasons(token, { jwks: parseJWKS(Buffer.from(JSON.stringify(key.jwks))) }), []);
    assert.throws(() => parseJWKS({ keys: [{ ...key.jwk, kid: undefined }] }), ReceiptKeyError);
    assert.throws(() => parseJWKS({ keys: [key.jwk, key.jwk] }), ReceiptKeyError);
    assert.throws(() => parseJWKS('{"keys":[],"keys":[]}'), ReceiptKeyError);
    assert.throws(() => parseJWKS({ keys: Array.from({ length: 33 }, (_, i) => ({ ...key.jwk, kid: `k${i}` })) }), (e) => e.kind === 'tooLarge');
    assert.throws(() => parseJWKS({ keys: [], pad: 'x'.repeat(65536) }), (e) => e.kind === 'tooLarge');
    assert.throws(() => parseJWKS({ keys: [{ ...key.jwk, use: 'enc' }] }), ReceiptKeyError);
    assert.equal(parseJWKS({ keys: [] }).size, 0);
    assert.deepEqual(parseJWKS(key.jwks).toJSON(), key.jwks);
  });

  test('whatever a client sends, an answer and never an exception', () => {
    const odd = [undefined, null, 42, {}, [], '', '.', '..', '...', 'a.b.c', '\u0000.\u0000.\u0000', 'é.é.é', '\ud800.a.b', 'x'.repeat(9000), Symbol('s')];
    for (const token of odd) {
      for (const proof of [undefined, null, 7, '', 't=1,s=', '\ud800', {}]) {
        const answer = verify(token, { proof, method: 42, pathAndQuery: undefined });
        assert.equal(answer.valid, false);
        assert.deepEqual(answer.reasons, ['malformed']);
      }
    }
  });

  test('the CommonJS entry is the same library', () => {
    const require = createRequire(import.meta.url);
    const cjs = require('../index.cjs');
    assert.equal(cjs.verifySessionToken, verifySessionToken);
  });
});
