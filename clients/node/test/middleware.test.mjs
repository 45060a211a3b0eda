// The middleware layer on real servers: the framework-free check(req) under node:http, the connect-style middleware
// under Debian's Express (mounted with app.use: its router refuses app.all('*')), and the Fastify onRequest hook with
// the request and reply shapes Fastify documents (Fastify itself cannot be installed here). Gatehouse is the fake of
// support/fake-gatehouse.mjs, so that it can be made to fail; e2e.test.mjs runs the same against a real one.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createCheck, gatehouse, fastifyOnRequest } from '../index.js';
import { fakeGatehouse } from './support/fake-gatehouse.mjs';
import { issuer, phone, claims } from './support/receipts.mjs';
import { loadExpress } from './support/express.mjs';

const ENV = 'env_middleware00000000';
const key = issuer('kid-middleware');
const ROUTES = [
  { name: 'orders', match: 'GET /api/orders/**', mode: 'enforce' },
  { name: 'pay', match: 'POST /api/pay', mode: 'enforce', require: { bound: true, attestation: 'verified' }, consume: true },
  { name: 'feed', match: 'GET /api/feed', mode: 'monitor' },
  { name: 'health', match: 'GET /healthz', mode: 'off' },
  { name: 'attested', match: 'GET /api/attested', mode: 'enforce', require: { attestation: 'verified' } },
];
const now = () => Math.floor(Date.now() / 1000);
const receipt = (extra = {}) => key.sign(claims(ENV, now() - 5, { sub: `req_${Math.random().toString(36).slice(2)}`, ...extra }));

let fake;
before(async () => {
  fake = await fakeGatehouse({ jwks: key.jwks, environment: ENV });
});
after(() => fake.close());

/** A node:http server running `handler`; answers `{url, close}`. */
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

/** A plain node:http app guarded by check(req): the upstream answers what it learnt. */
async function plainApp(options) {
  const check = createCheck(options);
  const calls = [];
  const app = await serve(async (req, res) => {
    const result = await check(req);
    if (!result.allow) {
      res.writeHead(result.status, result.headers);
      res.end(JSON.stringify(result.problem));
      return;
    }
    calls.push(req.url);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ upstream: true, outcome: result.outcome, route: result.route, sub: result.verification?.claims?.sub ?? null }));
  });
  return { ...app, check, calls };
}

/** One call with the path sent exactly as given (fetch would resolve %2e%2e segments itself). */
function call(base, method, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const request = http.request(base + '/', { method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: new Headers(response.headers), body: text === '' ? null : JSON.parse(text) }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('check(req) under node:http', () => {
  let app;
  before(async () => {
    app = await plainApp({ gatehouseUrl: fake.url, environment: ENV, routes: ROUTES, mode: 'monitor', secretKey: fake.secretKey, report: false });
  });
  after(() => app.close());

  test('an enforced route refuses a call without a receipt: 401 problem+json, the upstream not reached', async () => {
    const before = app.calls.length;
    const answer = await call(app.url, 'GET', '/api/orders/1');
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('content-type'), 'application/problem+json');
    assert.equal(answer.headers.get('gatehouse-outcome'), 'missing');
    assert.equal(answer.headers.get('gatehouse-route'), 'orders');
    assert.deepEqual(answer.body, { type: '/problems/receipt-missing', title: 'Receipt required', status: 401,
      detail: 'This call needs a Gatehouse receipt in the antibot-token header.', outcome: 'missing', route: 'orders', reasons: [] });
    assert.equal(app.calls.length, before);
  });

  test('a receipt passes, the outcome and the claims for the handler', async () => {
    const token = receipt({ sub: 'req_orders' });
    const answer = await call(app.url, 'GET', '/api/orders/1?page=2', { 'antibot-token': token });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { upstream: true, outcome: 'verified', route: 'orders', sub: 'req_orders' });
    const encoded = await call(app.url, 'GET', '/api/%6Frders/1', {});
    assert.equal(encoded.status, 401, 'a percent-encoded path is judged as its route');
    assert.equal(encoded.body.route, 'orders');
  });

  test('invalid, challenge and unmet, each refused as the edge check refuses it', async () => {
    const invalid = await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': 'not-a-receipt' });
    assert.deepEqual([invalid.status, invalid.body.outcome, invalid.body.reasons, invalid.body.type], [401, 'invalid', ['malformed'], '/problems/receipt-invalid']);
    const expired = await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': key.sign(claims(ENV, now() - 700)) });
    assert.deepEqual([expired.status, expired.body.reasons], [401, ['expired']]);
    const challenge = await call(app.url, 'GET', '/api/orders/1', { 'antibot-token': receipt({ action: 'challenge' }) });
    assert.deepEqual([challenge.status, challenge.body.outcome, challenge.body.type], [403, 'challenge', '/problems/receipt-challenge']);
    const unmet = await call(app.url, 'GET', '/api/attested', { 'antibot-token': receipt() });
    assert.deepEqual([unmet.status, unmet.body.outcome, unmet.body.reasons], [401, 'unmet', ['unattested']]);
    const debug = await call(app.url, 'GET', '/api/attested', { 'antibot-token': receipt({ att: { provider: 'debug', status: 'verified' } }) });
    assert.deepEqual([debug.status, debug.body.reasons], [401, ['unattested']], 'a debug attestation does not meet attestation: verified');
    const attested = await call(app.url, 'GET', '/api/attested', { 'antibot-token': receipt({ att: { provider: 'app-attest', status: 'verified' } }) });
    assert.equal(attested.status, 200);
  });

  test('a path that cannot be normalized is invalid under the strictest mode, route (unmatched)', async () => {
    const answer = await call(app.url, 'GET', '/api/%2Forders/1', { 'antibot-token': receipt() });
    assert.deepEqual([answer.status, answer.body.outcome, answer.body.route, answer.body.reasons], [401, 'invalid', '(unmatched)', ['path:encodedSeparator']]);
    const above = await call(app.url, 'GET', '/api/%2e%2e/%2e%2e/etc', {});
    assert.deepEqual([above.status, above.body.reasons], [401, ['path:aboveRoot']]);
  });

  test('monitor passes and says what it saw; off judges nothing; unmatched calls take the mode given', async () => {
    assert.deepEqual((await call(app.url, 'GET', '/api/feed')).body, { upstream: true, outcome: 'missing', route: 'feed', sub: null });
    assert.deepEqual((await call(app.url, 'GET', '/api/feed', { 'antibot-token': 'x' })).body.outcome, 'invalid');
    assert.deepEqual((await call(app.url, 'GET', '/healthz')).body, { upstream: true, outcome: null, route: 'health', sub: null });
    assert.deepEqual((await call(app.url, 'GET', '/other')).body, { upstream: true, outcome: 'missing', route: '(unmatched)', sub: null });
  });

  test('a consume route spends its receipt once on Gatehouse; the proof covers the path as sent', async () => {
    const p = phone();
    const token = receipt({ cnf: { jwk: p.jwk }, att: { provider: 'play-integrity', status: 'verified' } });
    const path = '/api/p%61y?amount=10';
    const proof = () => p.proof('POST', path, Date.now());
    const calls = fake.state.verifyCalls.length;
    const first = await call(app.url, 'POST', path, { 'antibot-token': token, 'antibot-pop': proof() });
    assert.deepEqual(first.body, { upstream: true, outcome: 'verified', route: 'pay', sub: first.body.sub });
    const spend = fake.state.verifyCalls[calls];
    assert.deepEqual({ consume: spend.consume, require: spend.require, pathAndQuery: spend.pathAndQuery, method: spend.method },
      { consume: true, require: { bound: true, attestation: 'verified' }, pathAndQuery: path, method: 'POST' });
    const again = await call(app.url, 'POST', path, { 'antibot-token': token, 'antibot-pop': proof() });
    assert.deepEqual([again.status, again.body.outcome, again.body.reasons, again.body.type], [401, 'reused', ['consumed'], '/problems/receipt-reused']);
    // Invalid offline (no proof): no network call, not spent.
    const fresh = receipt({ cnf: { jwk: p.jwk }, att: { provider: 'play-integrity', status: 'verified' } });
    const before = fake.state.verifyCalls.length;
    const noProof = await call(app.url, 'POST', path, { 'antibot-token': fresh });
    assert.deepEqual([noProof.status, noProof.body.reasons], [401, ['session:proof']]);
    assert.equal(fake.state.verifyCalls.length, before);
    // A challenge receipt is checked for reuse but not spent (consume false), as the edge check does.
    const challenge = await call(app.url, 'POST', path, { 'antibot-token': receipt({ action: 'challenge', cnf: { jwk: p.jwk } }), 'antibot-pop': proof() });
    assert.deepEqual([challenge.status, challenge.body.outcome], [403, 'challenge']);
    assert.equal(fake.state.verifyCalls.at(-1).consume, false);
  });
});

describe('when it cannot judge', () => {
  test('no keys ever fetched: 503 with Retry-After under enforce, passed uncounted under monitor', async () => {
    const reports = [];
    const check = createCheck({ gatehouseUrl: 'http://127.0.0.1:9', environment: ENV, routes: ROUTES, mode: 'monitor', secretKey: 'sk_test_x',
      fetch: async (url, init) => {
        if (String(url).includes('/ingest/')) reports.push(init);
        throw new TypeError('fetch failed');
      } });
    const request = (method, url, headers = {}) => ({ method, url, headers });
    const refused = await check(request('GET', '/api/orders/1', { 'antibot-token': receipt() }));
    assert.deepEqual([refused.allow, refused.status, refused.outcome, refused.headers['retry-after']], [false, 503, null, '5']);
    assert.equal(refused.problem.status, 503);
    const passed = await check(request('GET', '/api/feed', { 'antibot-token': receipt() }));
    assert.deepEqual([passed.allow, passed.outcome], [true, null]);
    const missing = await check(request('GET', '/api/orders/1'));
    assert.deepEqual([missing.status, missing.outcome], [401, 'missing'], 'no receipt needs no keys');
    await check.flush();
    const counted = JSON.parse(reports[0].body).counts;
    assert.deepEqual(counted.map((c) => [c.route, c.outcome, c.count]), [['orders', 'missing', 1]], 'only the judged call is counted');
    await check.close();
  });

  test('Gatehouse unreachable for a consume spend: 503 under enforce', async () => {
    const p = phone();
    const check = createCheck({ gatehouseUrl: fake.url, environment: ENV, routes: ROUTES, secretKey: fake.secretKey, report: false });
    fake.state.verifyMode = 'down';
    try {
      const token = receipt({ cnf: { jwk: p.jwk }, att: { provider: 'play-integrity', status: 'verified' } });
      const answer = await check({ method: 'POST', url: '/api/pay', headers: { 'antibot-token': token, 'antibot-pop': p.proof('POST', '/api/pay', Date.now()) } });
      assert.deepEqual([answer.status, answer.allow, answer.outcome], [503, false, null]);
      const monitored = createCheck({ gatehouseUrl: fake.url, environment: ENV, secretKey: fake.secretKey, report: false,
        routes: [{ ...ROUTES[1], mode: 'monitor' }] });
      const passed = await monitored({ method: 'POST', url: '/api/pay', headers: { 'antibot-token': token, 'antibot-pop': p.proof('POST', '/api/pay', Date.now()) } });
      assert.deepEqual([passed.allow, passed.outcome], [true, null]);
    } finally {
      fake.state.verifyMode = 'ok';
    }
  });

  test('a consume route needs a secret key; bad options are refused at once', () => {
    assert.throws(() => createCheck({ gatehouseUrl: fake.url, environment: ENV, routes: ROUTES }), /secretKey/);
    assert.throws(() => createCheck({ gatehouseUrl: fake.url, environment: ENV, routes: [], mode: 'block' }), /mode/);
    assert.throws(() => createCheck({ gatehouseUrl: fake.url, environment: ENV }), /routes are fetched .* needs secretKey/, 'no routes in code: fetched, with the secret key');
    assert.throws(() => createCheck({ gatehouseUrl: fake.url, environment: ENV, routes: [], onUnavailable: 'open' }), /onUnavailable/);
    assert.throws(() => createCheck({ gatehouseUrl: fake.url, routes: [] }), /environment/);
    assert.throws(() => createCheck({ gatehouseUrl: fake.url, environment: ENV, routes: [{ name: 'x', match: 'GET /a/**/b' }] }), /\/routes\/0\/match/);
    assert.throws(() => createCheck({ gatehouseUrl: fake.url, environment: ENV, secretKey: 'pk_test_x' }), /secretKey/);
  });
});

describe('reporting', () => {
  test('counts reach Gatehouse once a minute, once each, with an Idempotency-Key per report; a lost answer is retried without double counting', async () => {
    const logged = [];
    const logger = { warn: (message) => logged.push(message) };
    const secretKey = fake.secretKey;
    const check = createCheck({ gatehouseUrl: fake.url, environment: ENV, routes: ROUTES, secretKey, logger, reportIntervalMs: 60_000 });
    assert.equal(check.reporter._timer.hasRef(), false, 'the timer never keeps the process alive');
    fake.state.counted.length = 0;
    fake.state.reports.length = 0;
    const request = (url, headers = {}) => ({ method: 'GET', url, headers });
    for (let i = 0; i < 3; i++) await check(request('/api/orders/1'));
    await check(request('/api/orders/1', { 'antibot-token': receipt() }));
    await check(request('/api/feed', { 'antibot-token': 'x' }));
    await check(request('/healthz'));
    fake.state.ingestFailures = 1; // taken, answer lost
    await check.flush();
    assert.equal(fake.state.reports.length, 1);
    await check(request('/api/orders/2'));
    await check.flush();
    assert.equal(fake.state.reports.length, 3, 'the lost report resent, then the new counts in a report of their own');
    assert.equal(fake.state.reports[0].key, fake.state.reports[1].key, 'resent with its Idempotency-Key');
    assert.notEqual(fake.state.reports[1].key, fake.state.reports[2].key);
    assert.deepEqual(fake.totals(), { orders: { missing: 4, verified: 1 }, feed: { invalid: 1 } });
    const entry = fake.state.reports[0].body.counts[0];
    assert.match(entry.hour, /^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/);
    assert.equal(Date.parse(entry.hour) % 3600000, 0);
    assert.deepEqual(Object.keys(entry).sort(), ['count', 'hour', 'outcome', 'route']);
    assert.ok(logged.length >= 1, 'the failure was logged');
    assert.ok(logged.every((line) => !line.includes(secretKey)), 'never the secret key');
    assert.ok(!(await import('node:util')).inspect(check.reporter, { depth: 5 }).includes(secretKey));
    await check.close();
    assert.equal(check.reporter._timer, null);
  });

  test('a refused secret key stops the report and says so, without the key', async () => {
    const logged = [];
    const check = createCheck({ gatehouseUrl: fake.url, environment: ENV, routes: [], secretKey: 'sk_test_wrong_one', logger: { warn: (m) => logged.push(m) } });
    await check({ method: 'GET', url: '/x', headers: {} });
    await check.flush();
    assert.equal(check.reporter.stats.dropped, 1);
    assert.match(logged.join('\n'), /misconfigured: Gatehouse refused the secret key \(POST \/api\/ingest\/v1\/enforcement answered 401\)/);
    assert.equal(check.engine.alarm.raised, 1, 'a misconfiguration, not an outage');
    assert.ok(!logged.join('\n').includes('sk_test_wrong_one'));
    await check.close();
  });
});

describe('Express (Debian node-express)', () => {
  test('app.use(gatehouse(...)): refusals, req.gatehouse in the handlers, mounted routers see the whole path', async () => {
    const express = loadExpress();
    const app = express();
    const guard = gatehouse({ gatehouseUrl: fake.url, environment: ENV, routes: ROUTES, mode: 'monitor', secretKey: fake.secretKey, report: false });
    app.use(guard);
    const api = express.Router();
    api.get('/orders/:id', (req, res) => res.json({ id: req.params.id, gatehouse: { outcome: req.gatehouse.outcome, route: req.gatehouse.route, sub: req.gatehouse.verification?.claims?.sub } }));
    app.use('/api', api);
    app.get('/healthz', (req, res) => res.json({ gatehouse: req.gatehouse }));
    const server = await serve(app);
    try {
      const refused = await call(server.url, 'GET', '/api/orders/7');
      assert.deepEqual([refused.status, refused.headers.get('content-type'), refused.body.outcome], [401, 'application/problem+json', 'missing']);
      const passed = await call(server.url, 'GET', '/api/orders/7', { 'antibot-token': receipt({ sub: 'req_express' }) });
      assert.deepEqual(passed.body, { id: '7', gatehouse: { outcome: 'verified', route: 'orders', sub: 'req_express' } });
      assert.deepEqual((await call(server.url, 'GET', '/healthz')).body, { gatehouse: { outcome: null, route: 'health', verification: null } });
      const challenge = await call(server.url, 'GET', '/api/orders/7', { 'antibot-token': receipt({ action: 'challenge' }) });
      assert.equal(challenge.status, 403);
    } finally {
      await server.close();
      await guard.close();
    }
  });
});

describe('Fastify onRequest hook (the shapes Fastify documents)', () => {
  /** A reply as Fastify's: code(), header(), send() chain and mark it sent. */
  function reply() {
    return {
      statusCode: 200, headers: {}, payload: undefined, sent: false,
      code(status) { this.statusCode = status; return this; },
      header(name, value) { this.headers[name.toLowerCase()] = value; return this; },
      send(payload) { this.payload = payload; this.sent = true; return this; },
    };
  }
  /** A request as Fastify's: method, url (path and query as sent), headers, raw (the IncomingMessage). */
  const request = (method, url, headers = {}) => ({ id: 'req-1', method, url, headers, raw: { method, url, headers }, params: {}, query: {} });

  test('refuses through reply and returns it; passes with request.gatehouse set', async () => {
    const hook = fastifyOnRequest({ gatehouseUrl: fake.url, environment: ENV, routes: ROUTES, secretKey: fake.secretKey, report: false });
    assert.equal(hook.constructor.name, 'AsyncFunction', 'an async hook: Fastify awaits it, no done callback');
    assert.equal(hook.length, 2);
    const refusedRequest = request('GET', '/api/orders/1');
    const refusedReply = reply();
    const returned = await hook(refusedRequest, refusedReply);
    assert.equal(returned, refusedReply, 'an async hook that answers returns the reply');
    assert.deepEqual([refusedReply.statusCode, refusedReply.headers['content-type'], refusedReply.sent], [401, 'application/problem+json', true]);
    assert.equal(JSON.parse(refusedReply.payload).outcome, 'missing');
    assert.equal(refusedRequest.gatehouse.outcome, 'missing');
    const passing = request('GET', '/api/orders/1?x=1', { 'antibot-token': receipt({ sub: 'req_fastify' }) });
    const passingReply = reply();
    assert.equal(await hook(passing, passingReply), undefined);
    assert.equal(passingReply.sent, false);
    assert.deepEqual([passing.gatehouse.outcome, passing.gatehouse.route, passing.gatehouse.verification.claims.sub], ['verified', 'orders', 'req_fastify']);
    await hook.close();
  });
});
