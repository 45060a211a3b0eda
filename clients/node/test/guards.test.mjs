// Guards on handlers (docs/device-api.md "Guards on the handler"): gh.require(name) under Debian's Express and
// gh.judge(name, req) for any framework, against support/fake-gatehouse.mjs. A guard names the environment's route
// whose mode, require and consume apply; a route the environment does not hold is judged under the environment's
// mode, counted under its name, warned once; `mode` in code overrides. Behind the route table on the same request,
// a guard takes the table's judgement of its own route as it is (one spend, one count) and judges anew under any
// other route.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { gatehouse } from '../index.js';
import { fakeEnvironment } from './support/fake-environment.mjs';
import { phone } from './support/receipts.mjs';
import { loadExpress } from './support/express.mjs';
import { waitFor, keptLogger } from './support/wait.mjs';

const ENV = 'env_guards0000000000000';
const environment = fakeEnvironment(ENV, 'kid-guards');
const { receipt, request, reset } = environment;

/** One call with the path sent as written; resolves with {status, body, headers}. */
function call(base, method, target, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + '/', { method, path: target, headers: { ...headers, connection: 'close' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text === '' ? null : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a guard naming a route the environment does not hold: its mode, no requirement beyond a valid receipt, counted under its name, warned once', async () => {
  reset({ mode: 'enforce', routes: [{ name: 'feed', match: 'GET /api/feed', mode: 'monitor', require: { bound: true } }] });
  const logger = keptLogger();
  const gh = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, reportIntervalMs: 3_600_000, logger });
  try {
    await waitFor(() => gh.check.routes.current().table !== null, 'the routes');
    environment.fake.state.counted.length = 0;
    assert.equal((await gh.judge('exports', request('GET', '/api/exports'))).status, 401, 'the environment\'s mode: enforce');
    const valid = await gh.judge('exports', request('GET', '/api/exports', { 'antibot-token': receipt() }));
    assert.deepEqual([valid.status, valid.outcome, valid.route], [200, 'verified', 'exports'], 'an unbound receipt: no requirement');
    const feed = await gh.judge('feed', request('GET', '/anything', { 'antibot-token': receipt() }));
    assert.deepEqual([feed.allow, feed.outcome, feed.verification.reasons], [true, 'unmet', ['unbound']], 'the named route\'s require and mode');
    const overridden = await gh.judge('feed', request('GET', '/anything', { 'antibot-token': receipt() }), { mode: 'enforce' });
    assert.deepEqual([overridden.status, overridden.outcome, overridden.mode], [401, 'unmet', 'enforce'], 'mode in code overrides');
    assert.throws(() => gh.require('Not A Name'), TypeError);
    assert.throws(() => gh.require('feed', { mode: 'strict' }), TypeError);
    await gh.flush();
    assert.deepEqual(environment.fake.totals(), { exports: { missing: 1, verified: 1 }, feed: { unmet: 2 } });
    assert.equal(logger.lines.warn.filter((line) => line.includes('"exports"')).length, 1, 'warned once');
  } finally {
    await gh.close();
  }
});

test('behind the route table: the same route\'s judgement is taken as it is (one spend, one count); another route is judged anew', async () => {
  reset({ mode: 'monitor', routes: [
    { name: 'api', match: 'POST /api/open/**', mode: 'monitor' },
    { name: 'payments', match: 'POST /api/**', mode: 'enforce', require: { bound: true }, consume: true },
  ] });
  const express = loadExpress();
  const app = express();
  const gh = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, reportIntervalMs: 3_600_000, logger: null });
  const ran = [];
  app.use(gh);
  app.post('/api/payments', gh.require('payments'), (req, res) => res.json((ran.push(req.gatehouse.route), req.gatehouse)));
  app.post('/api/open/pay', gh.require('payments'), (req, res) => res.json((ran.push(req.gatehouse.route), req.gatehouse)));
  app.get('/api/orders/:id', gh.require('orders', { mode: 'enforce' }), (req, res) => res.json((ran.push(req.gatehouse.route), req.gatehouse)));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    await waitFor(() => gh.check.routes.current().table !== null, 'the routes');
    environment.fake.state.counted.length = 0;
    const p = phone();
    const token = receipt({ cnf: { jwk: p.jwk } });
    const spends = environment.fake.state.verifyCalls.length;
    const paid = await call(base, 'POST', '/api/payments', { 'antibot-token': token, 'antibot-pop': p.proof('POST', '/api/payments', Date.now()) });
    assert.deepEqual([paid.status, paid.body.outcome, paid.body.route, paid.body.verification.consumed], [200, 'verified', 'payments', true]);
    assert.equal(environment.fake.state.verifyCalls.length - spends, 1, 'spent once, by the table; the guard took its judgement');
    // The table judged this call under `api` (monitor): it passed there, and the guard judges it under payments.
    const open = await call(base, 'POST', '/api/open/pay');
    assert.deepEqual([open.status, open.body.outcome, open.body.route, open.headers['gatehouse-route']], [401, 'missing', 'payments', 'payments']);
    // HEAD reaches the GET handler: its guard judges it (enforce in code; orders is not the environment's route).
    const head = await call(base, 'HEAD', '/api/orders/7');
    assert.deepEqual([head.status, head.headers['gatehouse-outcome'], head.headers['gatehouse-route']], [401, 'missing', 'orders']);
    assert.deepEqual(ran, ['payments']);
    await gh.flush();
    assert.deepEqual(environment.fake.totals(), { payments: { verified: 1, missing: 1 }, api: { missing: 1 }, '(unmatched)': { missing: 1 }, orders: { missing: 1 } });
  } finally {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
    await gh.close();
  }
});
