// The README's quickstarts, run as a team would run them: each block marked <!-- quickstart: NAME --> written to a
// file and started with node, the package installed beside it (node_modules/gatehouse-receipts), Gatehouse's keys,
// routes and spends from support/fake-gatehouse.mjs. Express is Debian's node-express; Fastify cannot be installed
// here, so its quickstart runs on a stand-in module implementing the part of Fastify's documented API it uses
// (Fastify(), decorateRequest, get with options.preHandler and :params, reply.headers, listen, close) on node:http.
// Each is stopped with SIGTERM right after its judged calls: once it has exited (a state awaited, not a clock),
// Gatehouse holds exactly the counts of those calls.
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createRequire } from 'node:module';
import { fakeGatehouse } from './support/fake-gatehouse.mjs';
import { issuer, phone, claims } from './support/receipts.mjs';
import { waitFor } from './support/wait.mjs';
import { startQuickstart } from './support/quickstarts.mjs';
import { loadExpress } from './support/express.mjs';

const ENV = 'env_quickstart000000000';
const key = issuer('kid-quickstart');
const receipt = (extra = {}) => key.sign(claims(ENV, Math.floor(Date.now() / 1000) - 5, { sub: 'req_quickstart', ...extra }));
const ROUTES = [
  { name: 'orders', match: 'GET /api/orders/*', mode: 'enforce', require: {}, consume: false },
  { name: 'payments', match: 'POST /api/payments', mode: 'enforce', require: { bound: true, attestation: 'verified' }, consume: true },
  { name: 'feed', match: 'GET /api/feed', mode: 'monitor', require: {}, consume: false },
];

// The part of Fastify's API the quickstart uses, as Fastify documents it: a route's async preHandler that answers
// through reply.send() and returns the reply ends the request; a route handler's resolved value is sent as JSON;
// reply.headers(object); app.close() stops listening.
const FASTIFY_STAND_IN = `
import http from 'node:http';
export default function Fastify() {
  const hooks = [];
  const routes = [];
  const decorations = {};
  let server = null;
  const app = {
    decorateRequest(name, value) { decorations[name] = value; return app; },
    addHook(name, hook) { if (name !== 'onRequest') throw new Error('stand-in: onRequest only'); hooks.push(hook); return app; },
    get(pattern, options, handler) {
      if (handler === undefined) [options, handler] = [{}, options];
      routes.push({ method: 'GET', pattern, options, handler });
      return app;
    },
    listen({ port, host }) {
      server = http.createServer(async (raw, res) => {
        const [pathname, search = ''] = raw.url.split('?');
        const request = { id: '1', raw, method: raw.method, url: raw.url, headers: raw.headers, params: {},
          query: Object.fromEntries(new URLSearchParams(search)), ...decorations };
        const reply = { statusCode: 200, sent: false, headers: { 'content-type': 'application/json; charset=utf-8' },
          code(status) { this.statusCode = status; return this; },
          header(name, value) { this.headers[name.toLowerCase()] = value; return this; },
          headers(values) { for (const [name, value] of Object.entries(values)) this.header(name, value); return this; },
          send(payload) { this.sent = true; res.writeHead(this.statusCode, this.headers);
            res.end(typeof payload === 'string' ? payload : JSON.stringify(payload)); return this; } };
        for (const hook of hooks) { await hook(request, reply); if (reply.sent) return; }
        for (const route of routes) {
          const names = [];
          const regex = new RegExp('^' + route.pattern.replace(/:([a-zA-Z]+)/g, (_, n) => { names.push(n); return '([^/]+)'; }) + '$');
          const found = route.method === raw.method && regex.exec(pathname);
          if (!found) continue;
          names.forEach((n, i) => (request.params[n] = found[i + 1]));
          if (route.options.preHandler) { await route.options.preHandler(request, reply); if (reply.sent) return; }
          return reply.send(await route.handler(request, reply));
        }
        reply.code(404).send({ message: 'Not Found' });
      });
      return new Promise((resolve) => server.listen(port, host, () => resolve(\`http://\${host}:\${port}\`)));
    },
    close() { return new Promise((resolve) => (server === null ? resolve() : server.close(() => resolve()))); },
  };
  return app;
}
`;

let fake;
const apps = [];
before(async () => {
  fake = await fakeGatehouse({ jwks: key.jwks, environment: ENV, edge: { mode: 'monitor', routes: ROUTES } });
});
after(async () => {
  for (const app of apps) app.cleanUp();
  await fake.close();
});

/** Starts the quickstart `name` against the fake Gatehouse. */
async function start(name, modules = {}) {
  const app = await startQuickstart(name, { gatehouseUrl: fake.url, environment: ENV, secretKey: fake.secretKey, modules });
  apps.push(app);
  return app;
}

/**
 * Calls the app, keeping what it judged (`tally`): a refusal says its outcome and route; a call that passed says them
 * in the body the quickstart answers. A 503 (routes not fetched yet) is not judged, not counted.
 */
async function call(base, tally, path, { method = 'GET', headers = {} } = {}) {
  // node:http sends the path as written (fetch would resolve dot segments itself).
  const response = await new Promise((resolve, reject) => {
    const request = http.request(base + '/', { method, path, headers: { ...headers, connection: 'close' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    request.on('error', reject);
    request.end();
  });
  let body = null;
  try {
    body = response.text === '' ? null : JSON.parse(response.text);
  } catch {
    body = { text: response.text };
  }
  const answer = { status: response.status, type: response.headers['content-type'] ?? null, body, route: response.headers['gatehouse-route'] ?? null };
  const outcome = body?.outcome ?? null;
  const route = body?.route ?? (body?.paid ? 'payments' : null);
  if (response.status !== 503 && outcome !== null && route !== null) {
    tally[route] ??= {};
    tally[route][outcome] = (tally[route][outcome] ?? 0) + 1;
  }
  return answer;
}

/** Waits until the app judges calls (its routes came from Gatehouse). */
function ready(base, tally, path) {
  return waitFor(async () => (await call(base, tally, path)).status !== 503, 'the routes from Gatehouse');
}

/** SIGTERM right after the calls; once the process has exited, Gatehouse holds exactly `tally`. */
async function stopAndCount(app, tally) {
  fake.state.counted.length = 0;
  app.child.kill('SIGTERM');
  await waitFor(() => app.child.exitCode !== null || app.child.signalCode !== null, 'the quickstart to exit on SIGTERM');
  assert.equal(app.child.exitCode, 0, `exited cleanly:\n${app.output.text}`);
  assert.deepEqual(fake.totals(), tally, 'every judged call reported on SIGTERM');
  assert.ok(Object.keys(tally).length > 0);
}

test('Express quickstart: guards on handlers (Debian node-express)', async () => {
  loadExpress();
  const expressDirectory = path.dirname(createRequire(import.meta.url).resolve('express/package.json'));
  const app = await start('express', { express: expressDirectory });
  const tally = {};
  await ready(app.base, tally, '/api/orders/1');
  for (const spelling of ['/api/orders/1', '/API/Orders/1/', '/api/orders/1;x', '/api/orders/%2e']) {
    const refused = await call(app.base, tally, spelling);
    assert.deepEqual([refused.status, refused.type, refused.body.outcome, refused.body.route, refused.route], [401, 'application/problem+json', 'missing', 'orders', 'orders'], spelling);
  }
  const passed = await call(app.base, tally, '/api/orders/1', { headers: { 'antibot-token': receipt() } });
  assert.deepEqual([passed.status, passed.body], [200, { outcome: 'verified', route: 'orders' }]);
  const unmet = await call(app.base, tally, '/api/payments', { method: 'POST', headers: { 'antibot-token': receipt() } });
  assert.deepEqual([unmet.status, unmet.body.outcome, unmet.body.reasons], [401, 'unmet', ['unbound', 'unattested']]);
  const p = phone();
  const good = receipt({ sub: 'req_pay_once', cnf: { jwk: p.jwk }, att: { provider: 'app-attest', status: 'verified' } });
  const pay = (target) => call(app.base, tally, target, { method: 'POST', headers: { 'antibot-token': good, 'antibot-pop': p.proof('POST', target, Date.now()) } });
  const paid = await pay('/api/payments');
  assert.deepEqual([paid.status, paid.body], [200, { paid: true, receipt: 'req_pay_once' }]);
  tally.payments.verified = (tally.payments.verified ?? 0) + 1;
  assert.deepEqual([(await pay('/API/PAYMENTS/')).body.outcome, (await pay('/api/payments')).body.outcome], ['reused', 'reused']);
  await stopAndCount(app, tally);
});

test('Express quickstart: the route table, with the route checked in the sensitive handler', async () => {
  const expressDirectory = path.dirname(createRequire(import.meta.url).resolve('express/package.json'));
  const app = await start('express-table', { express: expressDirectory });
  const tally = {};
  await ready(app.base, tally, '/api/orders/1');
  for (const [spelling, route] of [['/API/Orders/1/', 'orders'], ['/api/orders/..', 'orders'], ['/api/orders/1#x', '(unmatched)']]) {
    const refused = await call(app.base, tally, spelling);
    assert.deepEqual([refused.status, refused.route], [401, route], spelling);
  }
  const passed = await call(app.base, tally, '/api/orders/1', { headers: { 'antibot-token': receipt() } });
  assert.deepEqual([passed.status, passed.body], [200, { outcome: 'verified', route: 'orders' }]);
  const refused = await call(app.base, tally, '/api/payments#x', { method: 'POST', headers: { 'antibot-token': receipt() } });
  assert.deepEqual([refused.status, refused.body.reasons], [401, ['path:fragment']]);
  assert.deepEqual(tally['(unmatched)'], { invalid: 2 }, 'the refused paths, under the strictest mode');
  await stopAndCount(app, tally);
});

test('Fastify quickstart: a guard in preHandler (on a stand-in for Fastify)', async () => {
  const app = await start('fastify', { fastify: { source: FASTIFY_STAND_IN } });
  const tally = {};
  await ready(app.base, tally, '/api/orders/1');
  const refused = await call(app.base, tally, '/api/orders/1');
  assert.deepEqual([refused.status, refused.type, refused.body.outcome, refused.route], [401, 'application/problem+json', 'missing', 'orders']);
  const passed = await call(app.base, tally, '/api/orders/1', { headers: { 'antibot-token': receipt() } });
  assert.deepEqual([passed.status, passed.body], [200, { outcome: 'verified', route: 'orders' }]);
  await stopAndCount(app, tally);
});

test('node:http quickstart: gh.judge by name', async () => {
  const app = await start('node-http');
  const tally = {};
  await ready(app.base, tally, '/api/feed');
  assert.deepEqual(await call(app.base, tally, '/api/feed'), { status: 200, type: 'application/json', body: { outcome: 'missing', route: 'feed' }, route: null });
  assert.deepEqual((await call(app.base, tally, '/api/feed', { headers: { 'antibot-token': receipt() } })).body, { outcome: 'verified', route: 'feed' });
  assert.equal((await call(app.base, tally, '/elsewhere')).status, 404);
  await stopAndCount(app, tally);
});
