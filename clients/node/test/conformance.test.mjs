// The shared receipt conformance vectors (Tests/Fixtures/receipts/conformance.json, written by `make receipt-vectors`
// from Gatehouse's own signer): every case gets the answer GatehouseReceipts gives, valid, the reasons in order and
// the claims; the Python library's tests and GatehouseReceipts' read the same file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { verifySessionToken, REASONS } from '../index.js';

const path = fileURLToPath(new URL('../../../Tests/Fixtures/receipts/conformance.json', import.meta.url));
const { cases } = JSON.parse(readFileSync(path, 'utf8'));

/** A vector's policy as the options take it. */
function policyOf(p) {
  return p === null || p === undefined ? null : { bound: p.bound === true, attestation: p.attestation === 'verified' ? 'verified' : null, debug: p.debug === true };
}

function verify(c, jwks = c.jwks) {
  return verifySessionToken(c.token, {
    jwks,
    environment: c.environment,
    method: c.request.method,
    pathAndQuery: c.request.pathAndQuery,
    proof: c.request.proof,
    policy: policyOf(c.policy),
    nowMs: c.nowMs,
  });
}

test('the vectors are there and cover every reason but consumed', () => {
  assert.ok(cases.length >= 50, `${cases.length} cases`);
  const seen = new Set(cases.flatMap((c) => c.expected.reasons));
  assert.deepEqual([...seen].sort(), REASONS.filter((r) => r !== 'consumed').sort());
});

for (const c of cases) {
  test(`conformance: ${c.name}`, () => {
    for (const jwks of [c.jwks, JSON.stringify(c.jwks)]) {
      const answer = verify(c, jwks);
      assert.equal(answer.valid, c.expected.valid, 'valid');
      assert.deepEqual(answer.reasons, c.expected.reasons, 'reasons');
      assert.deepEqual(answer.claims === null ? null : { ...answer.claims }, c.expected.claims === null ? null : c.expected.claims, 'claims');
      if (answer.claims !== null) {
        assert.equal(answer.action, answer.claims.action);
        assert.equal(answer.bound, answer.claims.cnf !== undefined);
        assert.equal(answer.platform, answer.claims.plat ?? null);
      } else {
        assert.equal(answer.action, null);
        assert.equal(answer.bound, false);
        assert.equal(answer.platform, null);
      }
    }
    // Asked twice, the same answer (the second from the memory of verified signatures).
    assert.deepEqual(verify(c).reasons, c.expected.reasons, 'reasons, again');
  });
}
