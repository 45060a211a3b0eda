// Nothing a client sends makes the library throw: a seeded random loop feeds verifySessionToken, verifyRequestProof
// and check(req) random tokens (random text, valid receipts mutated, random JSON signed by the real key so that the
// claims reader sees it), random proofs, methods, paths and header shapes, and checks every answer is well formed.
// GATEHOUSE_PROPERTY_SEED replays a run; GATEHOUSE_PROPERTY_ROUNDS makes it longer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifySessionToken, verifyRequestProof, createCheck, REASONS } from '../index.js';
import { issuer, phone, claims, b64url, b64json } from './support/receipts.mjs';
import { random } from './support/random.mjs';

const SEED = Number(process.env.GATEHOUSE_PROPERTY_SEED ?? 20261203);
const ROUNDS = Number(process.env.GATEHOUSE_PROPERTY_ROUNDS ?? 5000);
const ENV = 'env_property0000000000';
const NOW = 1_796_000_000_000;

const PIECES = ['.', '..', '=', '+', '/', '-', '_', ' ', '\u0000', '\u00e9', '\u212a', '\ud800', '\udfff', '\ud83d\ude00', 'e', 'A', '{', '}', '"', ',', 't=', 's=', '%', '%2F', '?'];
const NAMES = ['iss', 'env', 'sub', 'iat', 'exp', 'plat', 'action', 'att', 'cnf', 'jwk', 'provider', 'status', 'kty', 'crv', 'x', 'y', 'd', 'kid', 'use', 'alg', '__proto__', 'constructor', 'é', 'e\u0301'];

function text(r, max = 40) {
  let out = '';
  const n = r.int(max);
  for (let i = 0; i < n; i++) out += r() < 0.5 ? String.fromCharCode(32 + r.int(95)) : r.pick(PIECES);
  return out;
}

function value(r, depth = 0) {
  switch (r.int(depth > 3 ? 5 : 8)) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return r.pick([0, -0, 1, 1.5, 1e300, -1, 2 ** 53, 1796000000, 600, 1795999940]);
    case 3: return text(r, 20);
    case 4: return r.pick(['gatehouse', ENV, 'allow', 'challenge', 'verified', 'debug', 'EC', 'P-256', 'ES256', 'sig']);
    case 5: return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
    default: {
      const object = {};
      for (let i = r.int(6); i > 0; i--) object[r.pick(NAMES)] = value(r, depth + 1);
      return object;
    }
  }
}

function mutate(r, token) {
  const chars = [...token];
  for (let i = 1 + r.int(3); i > 0; i--) {
    const at = r.int(chars.length + 1);
    switch (r.int(4)) {
      case 0: chars.splice(at, 1); break;
      case 1: chars.splice(at, 0, r.pick(PIECES)); break;
      case 2: chars[at] = String.fromCharCode(32 + r.int(95)); break;
      default: chars.length = at;
    }
  }
  return chars.join('');
}

test(`random tokens, proofs and calls never throw (seed ${SEED}, ${ROUNDS} rounds)`, async () => {
  const r = random(SEED);
  const key = issuer('kid-property');
  const p = phone();
  const iat = NOW / 1000 - 30;
  const valid = [
    key.sign(claims(ENV, iat)),
    key.sign(claims(ENV, iat, { cnf: { jwk: p.jwk }, att: { provider: 'app-attest', status: 'verified' } })),
  ];
  const goodProof = p.proof('GET', '/api/orders', NOW);
  const seen = new Set();
  const check = createCheck({ jwks: key.jwks, environment: ENV, mode: 'enforce', report: false,
    routes: [{ name: 'orders', match: 'GET /api/orders/**' }, { name: 'bound', match: '* /api/bound', require: { bound: true } }] });
  for (let round = 0; round < ROUNDS; round++) {
    let token;
    switch (r.int(7)) {
      case 0: token = text(r, 80); break;
      case 6: token = r.pick(valid); break;
      case 1: token = mutate(r, r.pick(valid)); break;
      case 2: token = key.sign(value(r)); break;
      case 3: token = key.sign({ ...claims(ENV, iat), [r.pick(NAMES)]: value(r) }); break;
      case 4: token = key.sign(claims(ENV, iat), { header: r() < 0.5 ? value(r) : { alg: 'ES256', kid: r.pick(['kid-property', text(r, 10)]), typ: r.pick(['gatehouse-receipt+jwt', text(r, 5)]), [r.pick(NAMES)]: value(r) } }); break;
      default: token = b64url(r.bytes(r.int(40))) + '.' + b64json(text(r)) + '.' + b64url(r.bytes(r.pick([0, 63, 64, 70])));
    }
    const proof = r.pick([null, undefined, goodProof, mutate(r, goodProof), text(r, 60), `t=${NOW},s=${b64url(r.bytes(r.pick([64, 70, 72, 73])))}`, 42]);
    const method = r.pick(['GET', 'POST', 'get', '', text(r, 8), undefined]);
    const path = r.pick(['/api/orders', '/api/orders?page=2', text(r, 30), '/api/%2e%2e', '/\u00e9', undefined, '']);
    let answer;
    try {
      answer = verifySessionToken(token, { jwks: key.jwks, environment: ENV, method, pathAndQuery: path, proof, nowMs: NOW, policy: r() < 0.3 ? { bound: true, attestation: 'verified' } : null });
      assert.equal(typeof verifyRequestProof(proof, { jwk: r() < 0.8 ? p.jwk : value(r), method, pathAndQuery: path, nowMs: NOW }), 'boolean');
    } catch (error) {
      assert.fail(`round ${round} (seed ${SEED}) threw on token ${JSON.stringify(token)}: ${error.stack}`);
    }
    assert.equal(answer.valid, answer.reasons.length === 0);
    const order = answer.reasons.map((reason) => REASONS.indexOf(reason));
    assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), `reasons in order: ${answer.reasons}`);
    if (answer.claims === null) {
      assert.equal(answer.reasons.length, 1);
      assert.ok(['malformed', 'signatureInvalid'].includes(answer.reasons[0]));
    }
    seen.add(answer.reasons.join(','));

    const headers = r.pick([
      { 'antibot-token': token, 'antibot-pop': proof },
      { 'antibot-token': [token, token] },
      { 'antibot-token': 7 },
      new Headers(typeof token === 'string' && /^[\x20-\x7e]*$/.test(token) ? { 'antibot-token': token } : {}),
      undefined,
      {},
    ]);
    const url = r.pick([path, `http://h${path ?? ''}`, `/api/orders/${text(r, 10)}`, 42, undefined]);
    const result = await check({ method, url, originalUrl: r() < 0.2 ? url : undefined, headers });
    assert.equal(typeof result.allow, 'boolean');
    assert.ok([200, 401, 403, 503].includes(result.status), `status ${result.status}`);
    assert.ok([null, 'missing', 'invalid', 'reused', 'challenge', 'unmet', 'verified'].includes(result.outcome));
    assert.notEqual(result.status, 503, 'with keys given, every call is judged');
  }
  // The loop reached past the signature, not only the malformed.
  assert.ok(seen.has('') && seen.has('malformed') && seen.has('signatureInvalid'), [...seen].join(' | '));
  assert.ok([...seen].some((reasons) => reasons.includes('session:proof')), [...seen].join(' | '));
});
