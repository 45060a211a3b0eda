// One source of truth for modes and failing well (docs/device-api.md "One source of truth for modes", "Failing:
// unavailable, misconfigured, shutting down"), against support/fake-gatehouse.mjs, whose GET /api/v4/edge/routes can
// change its answer, stall, fail or refuse the key: the routes are fetched without blocking and refreshed (the
// interval made short here; 30 s by default), revalidated with the ETag, kept while Gatehouse is down; until the
// first answer every call is answered as if Gatehouse were unavailable (onUnavailable); another environment's key or a
// refused key is a misconfiguration (503 gatehouse-misconfigured, logged at error level at most once a minute).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gatehouse, createCheck } from '../index.js';
import { fakeEnvironment } from './support/fake-environment.mjs';
import { phone } from './support/receipts.mjs';
import { waitFor, keptLogger } from './support/wait.mjs';

const ENV = 'env_routessource0000000';
const environment = fakeEnvironment(ENV, 'kid-routes-source');
const { receipt, request, reset } = environment;

test('a switch from monitor to enforce on Gatehouse is enforced at the next refresh; 304 between; the last set kept while Gatehouse is down', async () => {
  reset({ mode: 'monitor', routes: [{ name: 'orders', match: 'GET /api/orders/*', mode: 'monitor', require: {}, consume: false }] });
  environment.fake.state.edgeMode = 'stall';
  const logger = keptLogger();
  const gh = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, routesIntervalMs: 40, report: false, logger, timeoutMs: 200 });
  const passing = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, routesIntervalMs: 40, report: false, logger: null, onUnavailable: 'pass', timeoutMs: 200 });
  try {
    // Until the first answer, as if Gatehouse were unavailable: refused by default, passed uncounted with 'pass'.
    const early = await gh.check(request('GET', '/api/orders/1'));
    assert.deepEqual([early.status, early.problem.type, early.headers['retry-after'], early.route, early.outcome], [503, '/problems/gatehouse-unavailable', '5', null, null]);
    const early2 = await gh.judge('orders', request('GET', '/api/orders/1'));
    assert.deepEqual([early2.status, early2.route, early2.headers['gatehouse-route']], [503, 'orders', 'orders']);
    const passed = await passing.check(request('GET', '/api/orders/1'));
    assert.deepEqual([passed.allow, passed.outcome], [true, null]);
    environment.fake.state.edgeMode = 'ok';
    const monitored = await waitFor(async () => {
      const result = await gh.check(request('GET', '/api/orders/1'));
      return result.status === 200 && result;
    }, 'the first answer');
    assert.deepEqual([monitored.outcome, monitored.route, monitored.mode], ['missing', 'orders', 'monitor']);
    await waitFor(() => environment.fake.state.edgeFetches.some((f) => f.status === 304 && f.ifNoneMatch !== null), 'a revalidation answered 304');

    const switched = Date.now();
    environment.fake.state.edge.routes[0].mode = 'enforce';
    const refused = await waitFor(async () => {
      const result = await gh.check(request('GET', '/API/Orders/1/'));
      return result.status === 401 && result;
    }, 'the switch to enforce', { timeoutMs: 60000 });
    assert.ok(Date.now() - switched < 60000);
    assert.deepEqual([refused.outcome, refused.route, refused.problem.type], ['missing', 'orders', '/problems/receipt-missing']);
    assert.equal((await gh.judge('orders', request('GET', '/whatever'))).status, 401, 'and the guard');

    environment.fake.state.edgeMode = 'down';
    const failures = gh.check.routes.stats.failures;
    await waitFor(() => gh.check.routes.stats.failures > failures + 1, 'failed refreshes');
    assert.equal((await gh.check(request('GET', '/api/orders/1'))).status, 401, 'the last good set is kept');
    assert.equal((await gh.check(request('GET', '/api/orders/1', { 'antibot-token': receipt() }))).status, 200);
    assert.equal(logger.lines.error.length, 0, 'Gatehouse down is not a misconfiguration');
  } finally {
    await gh.close();
    await passing.close();
  }
  assert.equal(gh.check.routes._timer, null, 'close() stops the refresh');
});

test("another environment's key: every judged call answers 503 gatehouse-misconfigured, logged once at error level", async () => {
  reset({ environment: 'env_another0000000000000', mode: 'monitor', routes: [] });
  const logger = keptLogger();
  const gh = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, report: false, logger });
  try {
    await waitFor(() => gh.check.routes.misconfiguration === 'environment', 'the answer');
    for (const judged of [gh.check(request('GET', '/x')), gh.judge('orders', request('GET', '/x')), gh.check(request('GET', '/y', { 'antibot-token': receipt() }))]) {
      const result = await judged;
      assert.deepEqual([result.status, result.problem.type, result.problem.title, result.outcome], [503, '/problems/gatehouse-misconfigured', 'Gatehouse is misconfigured', null]);
      assert.equal(result.headers['retry-after'], undefined);
    }
    const passing = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, report: false, logger: null, onUnavailable: 'pass' });
    await waitFor(() => passing.check.routes.misconfiguration === 'environment', 'the answer');
    const stillRefused = await passing.check(request('GET', '/x'));
    await passing.close();
    assert.deepEqual([stillRefused.status, stillRefused.problem.type], [503, '/problems/gatehouse-misconfigured'], "onUnavailable: 'pass' does not pass a misconfiguration");
    const off = await gh.judge('orders', request('GET', '/x'), { mode: 'off' });
    assert.equal(off.allow, true, 'a guard set off in code judges nothing');
    assert.equal(logger.lines.error.length, 1, 'logged once');
    assert.match(logger.lines.error[0], /env_another0000000000000, not to the configured env_routessource0000000/);
    assert.ok(!logger.lines.error[0].includes(environment.fake.secretKey));
  } finally {
    await gh.close();
  }
});

test('a refused key is a misconfiguration, not an outage: on the routes fetch, on a consume spend, on a report', async () => {
  reset({ mode: 'enforce', routes: [] });
  environment.fake.state.edgeMode = 'refuse';
  const logger = keptLogger();
  const gh = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, report: false, logger, routesIntervalMs: 40 });
  try {
    await waitFor(() => gh.check.routes.misconfiguration === 'key', 'the refusal');
    const refused = await gh.check(request('GET', '/x', { 'antibot-token': receipt() }));
    assert.deepEqual([refused.status, refused.problem.type], [503, '/problems/gatehouse-misconfigured']);
    environment.fake.state.edgeMode = 'ok';
    await waitFor(() => gh.check.routes.misconfiguration === null, 'the key accepted again');
    assert.equal((await gh.check(request('GET', '/x', { 'antibot-token': receipt() }))).status, 200);
    assert.equal(logger.lines.error.length, 1);
    assert.match(logger.lines.error[0], /refused the secret key \(GET \/api\/v4\/edge\/routes answered 401\)/);
  } finally {
    await gh.close();
  }

  const spendLogger = keptLogger();
  const p = phone();
  const spend = createCheck({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: 'sk_test_revoked', report: false, logger: spendLogger,
    routes: [{ name: 'pay', match: 'POST /api/pay', mode: 'enforce', consume: true }, { name: 'watch', match: 'POST /api/watch', mode: 'monitor', consume: true }] });
  for (let i = 0; i < 3; i++) {
    const result = await spend(request('POST', '/api/pay', { 'antibot-token': receipt({ cnf: { jwk: p.jwk } }), 'antibot-pop': p.proof('POST', '/api/pay', Date.now()) }));
    assert.deepEqual([result.status, result.problem.type, result.route], [503, '/problems/gatehouse-misconfigured', 'pay']);
  }
  const watched = await spend(request('POST', '/api/watch', { 'antibot-token': receipt() }));
  assert.deepEqual([watched.allow, watched.outcome], [true, null], 'under monitor the call passes, not judged');
  assert.equal(spendLogger.lines.error.length, 1, 'logged at most once a minute');
  assert.equal(spend.engine.alarm.raised, 4);

  const reportLogger = keptLogger();
  const reporting = createCheck({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: 'sk_test_revoked', routes: [], logger: reportLogger });
  await reporting(request('GET', '/x'));
  await reporting.close();
  assert.match(reportLogger.lines.error.join('\n'), /misconfigured: Gatehouse refused the secret key \(POST \/api\/ingest\/v1\/enforcement answered 401\)/);
});

test('routes in code win: never fetched, and said once; mode without routes is the environment\'s', async () => {
  reset({ mode: 'enforce', routes: [] });
  const logger = keptLogger();
  const gh = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, routes: [], mode: 'monitor', report: false, logger });
  try {
    const keysBefore = environment.fake.state.keyFetches.length;
    assert.equal((await gh.check(request('GET', '/x', { 'antibot-token': receipt() }))).outcome, 'verified');
    assert.ok(environment.fake.state.keyFetches.length > keysBefore || gh.check.keys.hasKeys, 'the keys were fetched');
    assert.equal(environment.fake.state.edgeFetches.length, 0, 'the routes were not');
    assert.equal(logger.lines.info.length, 1);
    assert.match(logger.lines.info[0], /routes given in code \(0\)/);
  } finally {
    await gh.close();
  }
  const fetched = keptLogger();
  const other = gatehouse({ gatehouseUrl: environment.fake.url, environment: ENV, secretKey: environment.fake.secretKey, mode: 'monitor', report: false, logger: fetched });
  try {
    await waitFor(() => other.check.routes.current().table !== null, 'the routes');
    assert.equal((await other.check(request('GET', '/x'))).status, 401, 'the environment says enforce');
    assert.match(fetched.lines.warn.join('\n'), /mode is for routes given in code/);
  } finally {
    await other.close();
  }
});
