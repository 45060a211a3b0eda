// End to end against a real `gatehouse serve` (support/gatehouse-server.mjs): receipts from POST /api/v4/assess, an
// Express app guarded by gatehouse() and a node:http app by check(req). The JWKS is fetched once for a hundred checks
// and once more after `gatehouse receipts rotate-key` (counted in the server's access log); a consume route spends a
// receipt once; `--revoke-now` makes the old receipts invalid once the keys are fetched again; the library answers
// as POST /api/v4/receipts/verify does; the counts show in GET …/enforcement as source `backend`; with Gatehouse
// stopped, the last keys keep verifying until the receipts expire, and what needs Gatehouse answers 503.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { JWKSSource, createCheck, gatehouse, verifySessionToken, consume, GatehouseUnavailableError } from '../index.js';
import { gatehouseBinary, startGatehouse, assess, decodeJWS, V1 } from './support/gatehouse-server.mjs';
import { phone } from './support/receipts.mjs';
import { loadExpress } from './support/express.mjs';

const binary = gatehouseBinary();
const ROUTES = [
  { name: 'orders', match: 'GET /api/orders/**', mode: 'enforce' },
  { name: 'pay', match: 'POST /api/pay', mode: 'enforce', require: { bound: true, attestation: 'verified', debug: true }, consume: true },
  { name: 'feed', match: 'GET /api/feed', mode: 'monitor' },
];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function serve(handler) {
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function call(base, method, path, headers = {}) {
  const response = await fetch(base + path, { method, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
}

/** Waits until `read()` is stable for 300 ms (the access log is written as requests end), at most 5 s. */
async function settled(read) {
  let last = read();
  for (let waited = 0; waited < 5000; waited += 300) {
    await sleep(300);
    const now = read();
    if (now === last) return now;
    last = now;
  }
  return last;
}

describe('against a real gatehouse serve', { skip: binary === null ? 'no gatehouse binary: build it (swift build) or set GATEHOUSE_BINARY' : false }, () => {
  let server;
  let environment;
  let secretKey;
  let publicKey;
  let debugToken;
  let clockOffset = 0;
  let source;
  let guard;
  let app;
  let plain;
  let plainCheck;
  const phoneKey = phone();
  const logged = [];
  const receipts = {};
  let fetchesAtStart;

  before(async () => {
    server = await startGatehouse(binary);
    fetchesAtStart = server.keyFetches();
    const created = await server.api('POST', `${V1}/environments`, { name: 'Node backend', kind: 'development' });
    environment = created.id;
    secretKey = created.keys.find((k) => k.type === 'secret').secret;
    publicKey = created.keys.find((k) => k.type === 'public').value;
    // The same routes on the environment, as a team keeps them (the edge and the backend count side by side).
    await server.api('PATCH', `${V1}/environments/${environment}`, { enforcement: { mode: 'monitor', routes: ROUTES } });
    debugToken = (await server.api('POST', `${V1}/environments/${environment}/debug-tokens`, { name: 'node e2e' })).token;

    // The keys' clock runs ahead on demand, so the 30 s between fetches for an unknown kid need not be waited out.
    source = new JWKSSource(server.base, { now: () => Date.now() + clockOffset });
    const options = { gatehouseUrl: server.base, environment, routes: ROUTES, mode: 'monitor', secretKey, jwks: source,
      reportIntervalMs: 3_600_000, logger: { warn: (message) => logged.push(message) } };
    const express = loadExpress();
    const expressApp = express();
    guard = gatehouse(options);
    expressApp.use(guard);
    expressApp.get('/api/orders/:id', (req, res) => res.json({ outcome: req.gatehouse.outcome, sub: req.gatehouse.verification.claims.sub }));
    expressApp.post('/api/pay', (req, res) => res.json({ paid: true, outcome: req.gatehouse.outcome, consumed: req.gatehouse.verification.consumed }));
    expressApp.get('/api/feed', (req, res) => res.json({ outcome: req.gatehouse.outcome }));
    app = await serve(expressApp);
    plainCheck = createCheck({ ...options, report: false });
    plain = await serve(async (req, res) => {
      const result = await plainCheck(req);
      res.writeHead(result.allow ? 200 : result.status, result.allow ? { 'content-type': 'application/json' } : result.headers);
      res.end(JSON.stringify(result.allow ? { outcome: result.outcome, route: result.route } : result.problem));
    });
  });

  after(async () => {
    await app?.close();
    await plain?.close();
    await guard?.close().catch(() => undefined);
    if (server !== undefined) {
      await server.stop();
      if (process.env.KEEP_GATEHOUSE_DIR) console.log(`kept ${server.directory}`);
      else server.cleanUp();
    }
  });

  test('a hundred checks, one JWKS fetch', async () => {
    const before = fetchesAtStart;
    receipts.first = [];
    for (let i = 0; i < 10; i++) receipts.first.push(await assess(server.base, publicKey));
    for (let i = 0; i < 100; i++) {
      const token = receipts.first[i % 10];
      const target = i % 2 === 0 ? app.url : plain.url;
      const answer = await call(target, 'GET', `/api/orders/${i}?page=${i}`, { 'antibot-token': token });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.outcome, 'verified');
    }
    assert.equal((await call(app.url, 'GET', '/api/orders/1')).status, 401);
    assert.equal((await call(app.url, 'GET', '/api/feed')).body.outcome, 'missing');
    assert.equal(await settled(server.keyFetches) - before, 1, 'one GET /api/v4/receipts/keys for a hundred checks');
  });

  test('the library answers as POST /api/v4/receipts/verify does', async () => {
    const other = await server.api('POST', `${V1}/environments`, { name: 'Other', kind: 'development' });
    const otherReceipt = await assess(server.base, other.keys.find((k) => k.type === 'public').value);
    const bound = await assess(server.base, publicKey, { receiptKey: phoneKey.spki });
    const debug = await assess(server.base, publicKey, { receiptKey: phoneKey.spki, attestation: { provider: 'debug', token: debugToken } });
    const path = '/api/orders?page=2';
    const cases = [
      [receipts.first[0], null, null],
      [receipts.first[0], null, { bound: true, attestation: 'verified' }],
      [bound, null, null],
      [bound, phoneKey.proof('GET', path, Date.now()), null],
      [bound, phoneKey.proof('GET', path, Date.now(), { der: true }), { bound: true }],
      [bound, phoneKey.proof('GET', '/api/other', Date.now()), null],
      [debug, phoneKey.proof('GET', path, Date.now()), { bound: true, attestation: 'verified' }],
      [debug, phoneKey.proof('GET', path, Date.now()), { bound: true, attestation: 'verified', debug: true }],
      [otherReceipt, null, null],
      ['not.a.receipt', null, null],
      [receipts.first[0].slice(0, -2) + 'AA', null, null],
    ];
    for (const [token, proof, policy] of cases) {
      const response = await fetch(`${server.base}/api/v4/receipts/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ token, method: 'GET', pathAndQuery: path, proof, require: policy ?? undefined }),
      });
      const server_ = await response.json();
      const ours = await verifySessionToken(token, { jwks: source, environment, method: 'GET', pathAndQuery: path, proof, policy });
      assert.deepEqual({ valid: ours.valid, reasons: ours.reasons, action: ours.action, bound: ours.bound, platform: ours.platform },
        { valid: server_.valid, reasons: server_.reasons, action: server_.action, bound: server_.bound, platform: server_.platform }, JSON.stringify({ proof, policy }));
      if (ours.claims !== null) assert.deepEqual(ours.claims.att, server_.attestation);
    }
  });

  test('after rotate-key, a receipt of the new key fetches the JWKS once more; the old receipts keep verifying', async () => {
    const oldKid = decodeJWS(receipts.first[0]).header.kid;
    server.rotateKey();
    let fresh;
    for (let waited = 0; waited < 10000; waited += 250) {
      fresh = await assess(server.base, publicKey);
      if (decodeJWS(fresh).header.kid !== oldKid) break;
      await sleep(250);
    }
    assert.notEqual(decodeJWS(fresh).header.kid, oldKid, 'the server signs with the new key within 5 s');
    receipts.second = fresh;
    const before = server.keyFetches();
    clockOffset += 31_000; // past the 30 s between fetches for an unknown kid
    for (let i = 0; i < 20; i++) {
      assert.equal((await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': fresh })).status, 200);
      assert.equal((await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': receipts.first[i % 10] })).status, 200, 'the retired key stays published');
    }
    assert.equal(await settled(server.keyFetches) - before, 1, 'one more fetch, for the new kid');
  });

  test('a consume route spends its receipt once, across the backend and the verify endpoint', async () => {
    const token = await assess(server.base, publicKey, { receiptKey: phoneKey.spki, attestation: { provider: 'debug', token: debugToken } });
    assert.deepEqual(decodeJWS(token).claims.att, { provider: 'debug', status: 'verified' });
    const pay = (proof) => call(app.url, 'POST', '/api/pay?amount=10', { 'antibot-token': token, 'antibot-pop': proof });
    const first = await pay(phoneKey.proof('POST', '/api/pay?amount=10', Date.now()));
    assert.deepEqual([first.status, first.body], [200, { paid: true, outcome: 'verified', consumed: true }]);
    const second = await pay(phoneKey.proof('POST', '/api/pay?amount=10', Date.now(), { der: true }));
    assert.deepEqual([second.status, second.body.outcome, second.body.reasons], [401, 'reused', ['consumed']]);
    const noProof = await assess(server.base, publicKey, { receiptKey: phoneKey.spki, attestation: { provider: 'debug', token: debugToken } });
    const invalid = await call(app.url, 'POST', '/api/pay?amount=10', { 'antibot-token': noProof });
    assert.deepEqual([invalid.status, invalid.body.outcome], [401, 'invalid']);
    // consume() directly: the receipt refused for want of a proof was not spent.
    const spent = await consume(noProof, { gatehouseUrl: server.base, secretKey, method: 'POST', pathAndQuery: '/api/pay', proof: phoneKey.proof('POST', '/api/pay', Date.now()), policy: { bound: true } });
    assert.deepEqual([spent.valid, spent.consumed], [true, true]);
    const again = await consume(noProof, { gatehouseUrl: server.base, secretKey, method: 'POST', pathAndQuery: '/api/pay', proof: phoneKey.proof('POST', '/api/pay', Date.now()) });
    assert.deepEqual([again.valid, again.reasons, again.consumed], [false, ['consumed'], false]);
  });

  test('--revoke-now: once the keys are fetched again, receipts of the revoked keys are invalid', async () => {
    const revokedKid = decodeJWS(receipts.second).header.kid;
    server.rotateKey({ revokeNow: true });
    let fresh;
    for (let waited = 0; waited < 10000; waited += 250) {
      fresh = await assess(server.base, publicKey);
      if (decodeJWS(fresh).header.kid !== revokedKid) break;
      await sleep(250);
    }
    assert.notEqual(decodeJWS(fresh).header.kid, revokedKid);
    receipts.third = fresh;
    receipts.boundKept = await assess(server.base, publicKey, { receiptKey: phoneKey.spki, attestation: { provider: 'debug', token: debugToken } });
    // Until the backend fetches the keys again, it still trusts the set it has (up to max-age: 5 minutes).
    assert.equal((await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': receipts.second })).status, 200);
    const before = server.keyFetches();
    clockOffset += 31_000;
    assert.equal((await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': fresh })).status, 200, 'the new kid: fetched');
    const revoked = await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': receipts.second });
    assert.deepEqual([revoked.status, revoked.body.outcome, revoked.body.reasons], [401, 'invalid', ['signatureInvalid']]);
    assert.equal((await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': receipts.first[0] })).status, 401, 'every earlier key too');
    assert.equal(await settled(server.keyFetches) - before, 1, 'one fetch: the revoked kid, unknown now, does not fetch again within 30 s');
  });

  test('the counts show in GET …/enforcement as source backend', async () => {
    await guard.flush();
    const expected = {
      orders: { missing: 1, invalid: 2, reused: 0, challenge: 0, unmet: 0, verified: 50 + 40 + 2 },
      pay: { missing: 0, invalid: 1, reused: 1, challenge: 0, unmet: 0, verified: 1 },
      feed: { missing: 1, invalid: 0, reused: 0, challenge: 0, unmet: 0, verified: 0 },
    };
    let report;
    for (let waited = 0; waited < 10000; waited += 200) {
      report = await server.api('GET', `${V1}/environments/${environment}/enforcement`);
      const backend = Object.fromEntries(report.routes.map((route) => [route.name, route.outcomes.backend]));
      if (JSON.stringify(['orders', 'pay', 'feed'].map((name) => backend[name])) === JSON.stringify(['orders', 'pay', 'feed'].map((name) => expected[name]))) break;
      await sleep(200);
    }
    const routes = Object.fromEntries(report.routes.map((route) => [route.name, route]));
    for (const [name, counts] of Object.entries(expected)) {
      assert.deepEqual(routes[name].outcomes.backend, counts, name);
      assert.deepEqual(Object.values(routes[name].outcomes.edge).reduce((a, b) => a + b, 0), 0, `${name}: nothing from the edge`);
    }
    assert.equal(routes.orders.wouldRefuse.count, 3);
    assert.ok(guard.check.reporter.stats.accepted >= 1);
  });

  test('Gatehouse stopped: the last keys keep verifying until the receipts expire; what needs Gatehouse answers 503', async () => {
    assert.equal(await server.stop(), 0, 'gatehouse serve exits cleanly on SIGTERM');
    assert.deepEqual(server.errors(), [], 'the server logged no errors');
    clockOffset += 600_000; // the kept set is stale: revalidation fails, the last good set is kept
    const alive = await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': receipts.third });
    assert.deepEqual([alive.status, alive.body.outcome], [200, 'verified']);
    assert.ok(source.stats.failures >= 1, 'the revalidation failed, and the last good set answered');
    const { exp } = decodeJWS(receipts.third).claims;
    const expired = await verifySessionToken(receipts.third, { jwks: source, environment, method: 'GET', pathAndQuery: '/', nowMs: exp * 1000 });
    assert.deepEqual(expired.reasons, ['expired'], 'until it expires');
    const unbound = await call(app.url, 'POST', '/api/pay', { 'antibot-token': receipts.third, 'antibot-pop': phoneKey.proof('POST', '/api/pay', Date.now()) });
    assert.deepEqual([unbound.status, unbound.body.outcome, unbound.body.reasons], [401, 'unmet', ['unbound', 'unattested']],
      'a receipt the route refuses offline needs no spend');
    // A receipt only the server can spend: 503 with Retry-After under enforce.
    const spend = await call(app.url, 'POST', '/api/pay', { 'antibot-token': receipts.boundKept, 'antibot-pop': phoneKey.proof('POST', '/api/pay', Date.now()) });
    assert.deepEqual([spend.status, spend.headers.get('retry-after'), spend.headers.get('content-type'), spend.body.status], [503, '5', 'application/problem+json', 503]);
    const fresh = createCheck({ gatehouseUrl: server.base, environment, routes: ROUTES, secretKey, report: false });
    const refused = await fresh({ method: 'GET', url: '/api/orders/1', headers: { 'antibot-token': receipts.third } });
    assert.deepEqual([refused.status, refused.headers['retry-after'], refused.outcome], [503, '5', null], 'no keys were ever fetched');
    const monitored = await fresh({ method: 'GET', url: '/api/feed', headers: { 'antibot-token': receipts.third } });
    assert.deepEqual([monitored.allow, monitored.outcome], [true, null]);
    await assert.rejects(consume(receipts.third, { gatehouseUrl: server.base, secretKey, method: 'GET', pathAndQuery: '/' }), GatehouseUnavailableError);
    await guard.flush();
    assert.ok(logged.length >= 1, 'the failed report is logged');
    assert.ok(logged.every((line) => !line.includes(secretKey)), 'without the secret key');
  });
});
