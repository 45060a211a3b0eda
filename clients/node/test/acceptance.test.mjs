// The invariant of docs/device-api.md "Enforcement that cannot be walked around", in-process under Debian's Express 4 on a
// loopback port: a protected handler (`payments` = POST /api/payments, enforce, consume, require bound + verified;
// `orders` = GET /api/orders/*, enforce), once behind the route-table middleware (app.use(gh)) and once behind guards
// (gh.require), with the routes fetched from (fake) Gatehouse. Every spelling of the path and method (case, trailing
// slash, HEAD for GET, `;`, `#`, `%3B`, `%23`, `%5C`, dot segments, double slashes, percent-encoded letters,
// absolute-form targets), sent raw over a socket so nothing rewrites it: without a receipt, or with one the route
// does not accept, no handler runs; one good receipt runs the consume handler at most once across all spellings.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createRequire } from 'node:module';
import { gatehouse } from '../index.js';
import { fakeGatehouse } from './support/fake-gatehouse.mjs';
import { issuer, phone, claims } from './support/receipts.mjs';
import { loadExpress } from './support/express.mjs';
import { waitFor } from './support/wait.mjs';

const { originForm } = createRequire(import.meta.url)('../src/path.cjs');
const ENV = 'env_acceptance000000000';
const key = issuer('kid-acceptance');
const ROUTES = [
  { name: 'payments', match: 'POST /api/payments', mode: 'enforce', require: { bound: true, attestation: 'verified' }, consume: true },
  { name: 'orders', match: 'GET /api/orders/*', mode: 'enforce', require: {}, consume: false },
];
const now = () => Math.floor(Date.now() / 1000) - 5;
const VERIFIED = { provider: 'app-attest', status: 'verified' };

const PAYMENTS = ['/api/payments', '/API/payments', '/api/Payments', '/API/PAYMENTS', '/api/payments/', '/API/PAYMENTS/', '/api/payments?x=1',
  '/api/payments/?x=1', '/api/payments;x', '/api/payments/;x', '/api;v=1/payments', '/api/payments#x', '/api/payments#?x=1', '/api/payments/#',
  '/api/payments%3B', '/api/payments%3bx', '/api/payments%23', '/api/payments%23x', '/api%5Cpayments', '/api/payments%5C', '/api\\payments',
  '/api/./payments', '/api/x/../payments', '/api/payments/.', '/api/payments/x/..', '//api//payments', '/api//payments', '/api/payments//',
  '/api/pay%6Dents', '/%61pi/payments', '/api/PAY%4dENTS', '/api/payments%2F', '/api/payments%00', '/api/pay ments', '/api/payments\u00e9',
  'http://localhost/api/payments', 'HTTP://h/API/Payments/', 'http://h/api/payments#x', 'https://h/api/payments?x=1', 'http://h\\api/payments',
  'http://h?/api/payments', 'http://h/api/payments;x'];
const ORDERS = ['/api/orders/7', '/API/ORDERS/7/', '/api/Orders/7?x=1', '/api/orders/7;x', '/api/orders/7#x', '/api/orders/7%3B', '/api/orders/7%23',
  '/api/orders/7%5C', '/api/orders/.', '/api/orders/..', '/api/orders/%2e', '/api/orders/%2E%2e', '/api/orders/.;x', '/api/./orders/7',
  '/api/x/../orders/7', '//api/orders/7', '/api//orders//7', '/api/orders/%37', '/api/%6Frders/7', 'http://h/api/orders/7', 'HTTPS://h/Api/Orders/7/',
  '/api/orders/7/.', '/api/orders/a|b', '/api/orders/%C3%A9'];

/** One raw request: resolves with the status code (0 when the connection ended without an answer). */
function raw(port, method, target, headers = {}) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('error', () => undefined);
    const lines = [`${method} ${target} HTTP/1.1`, 'Host: localhost', 'Connection: close', 'Content-Length: 0',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), '', ''];
    socket.write(Buffer.from(lines.join('\r\n'), 'utf8')); // not end(): Node's server drops the answer of a half-closed socket
  });
}

/** The target the phone signs for a spelling: its path and query (an absolute-form target's, as the library reads it). */
const signedTarget = (target) => (/^https?:\/\//i.test(target) ? originForm(target) : target);

let fake;
before(async () => {
  fake = await fakeGatehouse({ jwks: key.jwks, environment: ENV, edge: { mode: 'monitor', routes: ROUTES } });
});
after(() => fake.close());

for (const variant of ['route table', 'guards']) {
  describe(`Express 4, ${variant}`, () => {
    const runs = { payments: 0, orders: 0 };
    let server;
    let port;
    let gh;
    before(async () => {
      const express = loadExpress();
      const app = express();
      gh = gatehouse({ gatehouseUrl: fake.url, environment: ENV, secretKey: fake.secretKey, report: false, logger: null });
      const handler = (name) => (req, res) => {
        runs[name]++;
        res.json({ ran: name, route: req.gatehouse.route, outcome: req.gatehouse.outcome });
      };
      if (variant === 'route table') {
        app.use(gh);
        app.post('/api/payments', handler('payments'));
        app.get('/api/orders/:id', handler('orders'));
      } else {
        app.post('/api/payments', gh.require('payments'), handler('payments'));
        app.get('/api/orders/:id', gh.require('orders'), handler('orders'));
      }
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      port = server.address().port;
      await waitFor(() => gh.check.routes.current().table !== null, 'the routes from Gatehouse');
    });
    after(async () => {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
      await gh.close();
    });

    test('no spelling runs a protected handler without a receipt, or with one the route does not accept', async () => {
      const p = phone();
      const refusedReceipts = {
        none: () => ({}),
        unbound: () => ({ 'antibot-token': key.sign(claims(ENV, now(), { sub: `req_u${Math.random()}`, att: VERIFIED })) }),
        unattested: (method, target) => ({ 'antibot-token': key.sign(claims(ENV, now(), { sub: `req_a${Math.random()}`, cnf: { jwk: p.jwk } })), 'antibot-pop': p.proof(method, signedTarget(target), Date.now()) }),
        challenge: (method, target) => ({ 'antibot-token': key.sign(claims(ENV, now(), { sub: `req_c${Math.random()}`, action: 'challenge', cnf: { jwk: p.jwk }, att: VERIFIED })), 'antibot-pop': p.proof(method, signedTarget(target), Date.now()) }),
        expired: () => ({ 'antibot-token': key.sign(claims(ENV, now() - 700)) }),
        otherEnvironment: () => ({ 'antibot-token': key.sign(claims('env_other0000000000000000', now())) }),
        wrongProof: (method) => ({ 'antibot-token': key.sign(claims(ENV, now(), { sub: `req_p${Math.random()}`, cnf: { jwk: p.jwk }, att: VERIFIED })), 'antibot-pop': p.proof(method, '/elsewhere', Date.now()) }),
      };
      let routed = 0;
      for (const [kind, headersFor] of Object.entries(refusedReceipts)) {
        for (const [method, targets] of [['POST', PAYMENTS], ['post', PAYMENTS], ['GET', ORDERS], ['HEAD', ORDERS], ['head', ORDERS]]) {
          for (const target of targets) {
            if (kind !== 'none' && targets === ORDERS && ['unbound', 'unattested'].includes(kind)) continue; // orders requires neither
            const before = runs.payments + runs.orders;
            const status = await raw(port, method, target, headersFor(method, target));
            assert.equal(runs.payments + runs.orders, before, `${kind}: ${method} ${JSON.stringify(target)} ran a protected handler (answered ${status})`);
            if ([401, 403, 503].includes(status)) routed++;
          }
        }
      }
      assert.ok(routed > 200, `the spellings reached the check (${routed} refused)`);
    });

    test('one receipt runs the consume handler at most once across every spelling', async () => {
      const p = phone();
      const token = key.sign(claims(ENV, now(), { sub: `req_once_${variant.replace(' ', '_')}`, cnf: { jwk: p.jwk }, att: VERIFIED }));
      const statuses = [];
      for (const target of [...PAYMENTS, ...PAYMENTS]) {
        const status = await raw(port, 'POST', target, { 'antibot-token': token, 'antibot-pop': p.proof('POST', signedTarget(target), Date.now()) });
        statuses.push(status);
      }
      assert.equal(runs.payments, 1, `ran once: ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 200).length, 1);
      // The good receipt on the orders handler passes, under the route that names it.
      const orders = await raw(port, 'GET', '/API/Orders/7/', { 'antibot-token': key.sign(claims(ENV, now())) });
      assert.equal(orders, 200);
    });
  });
}
