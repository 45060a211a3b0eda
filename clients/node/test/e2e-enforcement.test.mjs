// End to end against a real `gatehouse serve` (support/gatehouse-server.mjs): one source of truth for modes and
// failing well (docs/device-api.md "Enforcement that cannot be walked around"). Routes come from GET /api/v4/edge/routes:
// a route switched from monitor to enforce through the management API is enforced within 60 s (the refresh interval
// made 1 s here; 30 s by default), revalidated with the ETag (304); a backend configured with another environment's
// id, or with a secret key Gatehouse does not know, answers 503 gatehouse-misconfigured; the README's Express
// quickstart stopped with SIGTERM right after N judged calls has reported them: GET …/enforcement shows N backend counts.
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createRequire } from 'node:module';
import { gatehouse } from '../index.js';
import { gatehouseBinary, startGatehouse, assess, V1 } from './support/gatehouse-server.mjs';
import { loadExpress } from './support/express.mjs';
import { startQuickstart } from './support/quickstarts.mjs';
import { waitFor, keptLogger } from './support/wait.mjs';

const binary = gatehouseBinary();
const ROUTES = [
  { name: 'orders', match: 'GET /api/orders/*', mode: 'monitor' },
  { name: 'payments', match: 'POST /api/payments', mode: 'enforce', require: { bound: true, attestation: 'verified' }, consume: true },
];
const request = (method, url, headers = {}) => ({ method, url, headers });

/** One call with the path sent as written. */
function call(base, method, target, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(base + '/', { method, path: target, headers: { ...headers, connection: 'close' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: text === '' ? null : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('enforcement against a real gatehouse serve', { skip: binary === null ? 'no gatehouse binary: build it (swift build) or set GATEHOUSE_BINARY' : false }, () => {
  let server;
  let environment;
  let secretKey;
  let publicKey;
  let other;
  const opened = [];

  before(async () => {
    server = await startGatehouse(binary);
    const created = await server.api('POST', `${V1}/environments`, { name: 'Node enforcement', kind: 'development' });
    environment = created.id;
    secretKey = created.keys.find((k) => k.type === 'secret').secret;
    publicKey = created.keys.find((k) => k.type === 'public').value;
    other = await server.api('POST', `${V1}/environments`, { name: 'Another', kind: 'development' });
    await server.api('PATCH', `${V1}/environments/${environment}`, { enforcement: { mode: 'monitor', routes: ROUTES } });
  });

  after(async () => {
    for (const closing of opened) await closing().catch(() => undefined);
    if (server !== undefined) {
      await server.stop();
      if (process.env.KEEP_GATEHOUSE_DIR) console.log(`kept ${server.directory}`);
      else server.cleanUp();
    }
  });

  test('a route switched from monitor to enforce through the management API is enforced within 60 s', async () => {
    const gh = gatehouse({ gatehouseUrl: server.base, environment, secretKey, routesIntervalMs: 1000, report: false, logger: null });
    opened.push(() => gh.close());
    const monitored = await waitFor(async () => {
      const result = await gh.judge('orders', request('GET', '/api/orders/7'));
      return result.status !== 503 && result;
    }, 'the first routes');
    assert.deepEqual([monitored.allow, monitored.outcome, monitored.mode], [true, 'missing', 'monitor']);
    assert.deepEqual([(await gh.check(request('HEAD', '/API/Orders/7/'))).route], ['orders'], 'the table matches as Express routes');
    await waitFor(() => gh.check.routes.stats.notModified > 0, 'a revalidation answered 304');

    const switched = Date.now();
    await server.api('PATCH', `${V1}/environments/${environment}`, { enforcement: { routes: [{ ...ROUTES[0], mode: 'enforce' }, ROUTES[1]] } });
    const refused = await waitFor(async () => {
      const result = await gh.judge('orders', request('GET', '/api/orders/7'));
      return result.status === 401 && result;
    }, 'the switch to enforce', { timeoutMs: 60000, everyMs: 100 });
    assert.ok(Date.now() - switched < 60000, `enforced after ${Date.now() - switched} ms`);
    assert.deepEqual([refused.outcome, refused.problem.type], ['missing', '/problems/receipt-missing']);
    const table = await gh.check(request('GET', '/api/orders/7;x'));
    assert.deepEqual([table.status, table.route, table.problem.reasons], [401, '(unmatched)', ['path:semicolon']]);
    const token = await assess(server.base, publicKey);
    assert.equal((await gh.judge('orders', request('GET', '/api/orders/7', { 'antibot-token': token }))).status, 200);
  });

  test("another environment's id, or a key Gatehouse does not know: 503 gatehouse-misconfigured, logged at error level", async () => {
    for (const [options, pattern] of [
      [{ environment: other.id, secretKey }, new RegExp(`belongs to environment ${environment}, not to the configured ${other.id}`)],
      [{ environment, secretKey: 'sk_test_' + 'x'.repeat(40) }, /refused the secret key \(GET \/api\/v4\/edge\/routes answered 401\)/],
    ]) {
      const logger = keptLogger();
      const gh = gatehouse({ gatehouseUrl: server.base, ...options, report: false, logger });
      opened.push(() => gh.close());
      await waitFor(() => gh.check.routes.misconfiguration !== null, 'the answer');
      const token = await assess(server.base, publicKey);
      for (const result of [await gh.judge('orders', request('GET', '/api/orders/7', { 'antibot-token': token })), await gh.check(request('GET', '/x'))]) {
        assert.deepEqual([result.status, result.problem.type, result.problem.title], [503, '/problems/gatehouse-misconfigured', 'Gatehouse is misconfigured']);
      }
      assert.equal(logger.lines.error.length, 1);
      assert.match(logger.lines.error[0], pattern);
      assert.ok(!logger.lines.error[0].includes(secretKey));
    }
  });

  test('the Express quickstart stopped with SIGTERM right after N judged calls: GET …/enforcement shows the N backend counts', async () => {
    const express = path.dirname(createRequire(import.meta.url).resolve('express/package.json'));
    loadExpress();
    const app = await startQuickstart('express', { gatehouseUrl: server.base, environment, secretKey, modules: { express } });
    opened.push(async () => app.cleanUp());
    await waitFor(async () => (await call(app.base, 'GET', '/api/orders/1')).status !== 503, 'the quickstart\'s routes');
    const expected = { missing: 1, invalid: 0, reused: 0, challenge: 0, unmet: 0, verified: 0 };
    const spellings = ['/api/orders/1', '/API/ORDERS/2/', '/api/orders/3;x', '/api/orders/..', '/api/orders/%2e'];
    for (const spelling of spellings) {
      assert.equal((await call(app.base, 'GET', spelling)).status, 401, spelling);
      expected.missing++;
    }
    for (let i = 0; i < 4; i++) {
      assert.equal((await call(app.base, 'HEAD', `/api/orders/${i}`, { 'antibot-token': await assess(server.base, publicKey) })).status, 200);
      expected.verified++;
    }
    assert.equal((await call(app.base, 'GET', '/api/orders/9', { 'antibot-token': 'not-a-receipt' })).status, 401);
    expected.invalid++;
    const N = Object.values(expected).reduce((a, b) => a + b, 0);
    app.child.kill('SIGTERM');
    await waitFor(() => app.child.exitCode !== null || app.child.signalCode !== null, 'the quickstart to exit');
    assert.equal(app.child.exitCode, 0, app.output.text);
    let backend;
    await waitFor(async () => {
      const report = await server.api('GET', `${V1}/environments/${environment}/enforcement`);
      backend = report.routes.find((route) => route.name === 'orders')?.outcomes.backend;
      return JSON.stringify(backend) === JSON.stringify(expected);
    }, `the ${N} counts in GET …/enforcement`, { everyMs: 100 }).catch(() => undefined);
    assert.deepEqual(backend, expected, `${N} judged calls, ${N} backend counts`);
  });
});
