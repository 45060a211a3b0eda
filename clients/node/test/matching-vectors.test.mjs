// The matching vectors (Tests/Fixtures/enforcement/matching.json, written by hand), which the Swift edge check and the
// Python library read too: for each call the route that judges it, the mode it is judged under and, for a path
// refused as two parsers could read it differently, the reason; and the one table of refusal problems, compared
// with what this library's answers carry (type, title, status, detail; outcome, route, reasons; the headers).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createRequire } from 'node:module';
import { createCheck } from '../index.js';
import { ROOT } from './support/gatehouse-server.mjs';
import { fakeGatehouse } from './support/fake-gatehouse.mjs';
import { issuer, phone, claims } from './support/receipts.mjs';

const require = createRequire(import.meta.url);
const { makeTable, classify } = require('../src/routes.cjs');
const { REFUSALS, originForm } = require('../src/path.cjs');
const { PROBLEMS } = require('../src/problems.cjs');

const VECTORS = JSON.parse(fs.readFileSync(path.join(ROOT, 'Tests', 'Fixtures', 'enforcement', 'matching.json'), 'utf8'));
const ENV = 'env_vectors000000000000';
const key = issuer('kid-vectors');
const quiet = { logger: null, report: false };
// Never asked: no receipt in these calls reaches a consume route's spend.
const nowhere = { gatehouseUrl: 'http://127.0.0.1:9', secretKey: 'sk_test_unused' };

test('the vectors hold every case: route, mode and reason', () => {
  assert.ok(VECTORS.cases.length >= 70, 'the vectors are all there');
  for (const c of VECTORS.cases) {
    const table = makeTable(c.routes ?? VECTORS.routes, c.environmentMode);
    const found = classify(table, c.method, c.target);
    assert.deepEqual({ route: found.name, mode: found.mode, reason: found.reason }, c.expect, c.name);
  }
});

test('the vectors name every refusal, and nothing else', () => {
  const reasons = new Set(VECTORS.cases.map((c) => c.expect.reason).filter((reason) => reason !== null));
  assert.deepEqual([...reasons].sort(), REFUSALS.map((kind) => `path:${kind}`).sort());
});

test('check(req) judges each vector as the table does; an absolute-form target by its path', async () => {
  for (const c of VECTORS.cases) {
    const check = createCheck({ jwks: key.jwks, environment: ENV, routes: c.routes ?? VECTORS.routes, mode: c.environmentMode, ...nowhere, ...quiet });
    const absolute = /^https?:\/\//i.test(c.target);
    const expect = absolute ? (() => {
      const found = classify(makeTable(c.routes ?? VECTORS.routes, c.environmentMode), c.method, originForm(c.target));
      return { route: found.name, mode: found.mode, reason: found.reason };
    })() : c.expect;
    if (absolute) assert.equal(expect.route, 'payments', 'the library takes the path of an absolute-form target first');
    const result = await check({ method: c.method, url: c.target, headers: {} });
    assert.equal(result.route, expect.route, c.name);
    assert.equal(result.mode, expect.mode, c.name);
    const judged = expect.mode !== 'off';
    assert.equal(result.outcome, judged ? (expect.reason === null ? 'missing' : 'invalid') : null, c.name);
    assert.equal(result.allow, expect.mode !== 'enforce', c.name);
    if (!result.allow) {
      const outcome = expect.reason === null ? 'missing' : 'invalid';
      const { type, title, status, detail } = VECTORS.problems[outcome];
      assert.deepEqual(result.problem, { type, title, status, detail, outcome, route: expect.route, reasons: expect.reason === null ? [] : [expect.reason] }, c.name);
      assert.deepEqual([result.headers['gatehouse-outcome'], result.headers['gatehouse-route']], [outcome, expect.route], c.name);
    }
  }
});

test('the problem table is the vectors\' table', () => {
  assert.deepEqual(Object.keys(PROBLEMS).sort(), Object.keys(VECTORS.problems).sort());
  for (const [name, [slug, title, status, detail]] of Object.entries(PROBLEMS)) {
    assert.deepEqual({ type: `/problems/${slug}`, title, status, detail }, VECTORS.problems[name], name);
  }
});

let fake;
before(async () => {
  fake = await fakeGatehouse({ jwks: key.jwks, environment: ENV, edge: { environment: 'env_someoneelse000000000', mode: 'enforce', routes: [] } });
});
after(() => fake.close());

test('every refusal and failure answers the table\'s problem, with outcome, route, reasons and headers', async () => {
  const p = phone();
  const now = Math.floor(Date.now() / 1000) - 5;
  const routes = [
    { name: 'strict', match: 'POST /api/strict', mode: 'enforce', require: { bound: true } },
    { name: 'spend', match: 'POST /api/spend', mode: 'enforce', consume: true },
  ];
  const check = createCheck({ gatehouseUrl: fake.url, secretKey: fake.secretKey, environment: ENV, routes, mode: 'enforce', ...quiet });
  const spent = key.sign(claims(ENV, now, { sub: 'req_spent' }));
  assert.equal((await check({ method: 'POST', url: '/api/spend', headers: { 'antibot-token': spent } })).outcome, 'verified');
  const unreachable = createCheck({ ...nowhere, environment: ENV, routes, mode: 'enforce', ...quiet, fetch: async () => { throw new TypeError('fetch failed'); } });
  const otherEnvironment = createCheck({ gatehouseUrl: fake.url, secretKey: fake.secretKey, environment: ENV, ...quiet });
  await otherEnvironment.routes.refresh();
  const cases = [
    ['missing', check, '/api/strict', {}, 'strict', []],
    ['invalid', check, '/api/strict', { 'antibot-token': 'x.y.z' }, 'strict', ['malformed']],
    ['reused', check, '/api/spend', { 'antibot-token': spent }, 'spend', ['consumed']],
    ['challenge', check, '/api/other', { 'antibot-token': key.sign(claims(ENV, now, { action: 'challenge' })) }, '(unmatched)', []],
    ['unmet', check, '/api/strict', { 'antibot-token': key.sign(claims(ENV, now)) }, 'strict', ['unbound']],
    ['unavailable', unreachable, '/api/strict', { 'antibot-token': key.sign(claims(ENV, now, { cnf: { jwk: p.jwk } })) }, 'strict', []],
    ['misconfigured', otherEnvironment, '/api/strict', { 'antibot-token': spent }, null, []],
  ];
  for (const [name, judge, url, headers, route, reasons] of cases) {
    const result = await judge({ method: 'POST', url, headers });
    const { type, title, status, detail } = VECTORS.problems[name];
    const failure = name === 'unavailable' || name === 'misconfigured';
    assert.deepEqual(result.problem, { type, title, status, detail, outcome: failure ? null : name, route, reasons }, name);
    assert.equal(result.status, status, name);
    assert.equal(result.headers['content-type'], 'application/problem+json', name);
    assert.equal(result.headers['gatehouse-outcome'], failure ? undefined : name, `${name}: Gatehouse-Outcome only with an outcome`);
    assert.equal(result.headers['gatehouse-route'], route ?? undefined, `${name}: Gatehouse-Route only with a route`);
    assert.equal(result.headers['retry-after'], name === 'unavailable' ? '5' : undefined, name);
    assert.ok(Object.values(result.headers).every((value) => typeof value === 'string' && value !== ''), `${name}: no empty header`);
  }
  const guarded = await otherEnvironment.judge('strict', { method: 'POST', url: '/api/strict', headers: {} });
  assert.deepEqual([guarded.status, guarded.problem.type, guarded.problem.route, guarded.headers['gatehouse-route']],
    [503, '/problems/gatehouse-misconfigured', 'strict', 'strict'], 'a guard names its route even when it cannot judge');
  await Promise.all([check.close(), unreachable.close(), otherEnvironment.close()]);
});
