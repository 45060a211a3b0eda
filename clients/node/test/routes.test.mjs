// Routes and paths as the edge check matches them (the tables of Tests/GatehouseTests/EnforcementRoutesTests.swift,
// case for case), and routes read as the management API reads an environment's enforcement.routes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const routes = require('../src/routes.cjs');

const show = (segments) => '/' + segments.join('/');

test('paths normalize', () => {
  for (const [raw, normalized] of [
    ['/', '/'], ['/a', '/a'], ['/a/', '/a/'], ['/a//b', '/a/b'], ['//a///b//', '/a/b/'],
    ['/api/pay%6Dents/1', '/api/payments/1'], ['/%41%7e%2d', '/A~-'], ['/a%20b', '/a%20b'], ['/a%3fb', '/a%3Fb'],
    ['/a/./b', '/a/b'], ['/a/b/..', '/a/'], ['/a/b/../c', '/a/c'], ['/a/%2e%2E/c', '/c'], ['/a/.', '/a/'],
    ['/a?x=/../..', '/a'], ['/a/b?', '/a/b'], ['/a?x;#\\', '/a'],
  ]) {
    assert.equal(show(routes.normalizePath(raw)), normalized, raw);
  }
});

test('paths that could mean two things are refused', () => {
  for (const [raw, reason] of [
    ['a/b', 'notAPath'], ['', 'notAPath'], ['?x', 'notAPath'], ['/a b', 'notAPath'], ['/\u00e9', 'notAPath'],
    ['/a%2Fb', 'encodedSeparator'], ['/a%2fb', 'encodedSeparator'], ['/a%00', 'encodedSeparator'],
    ['/a%', 'invalidEncoding'], ['/a%4', 'invalidEncoding'], ['/a%zz', 'invalidEncoding'], ['/a%4?1', 'invalidEncoding'],
    ['/..', 'aboveRoot'], ['/a/../..', 'aboveRoot'], ['/%2e%2e/etc', 'aboveRoot'],
    ['/a;b', 'semicolon'], ['/a%3bb', 'semicolon'], ['/a#b', 'fragment'], ['/a%23', 'fragment'], ['/a\\b', 'backslash'], ['/a%5C', 'backslash'],
    ['/a\tb', 'control'], ['/a%1F', 'control'], ['/a%7F', 'control'], ['/a\u007f', 'control'], ['/a%4;', 'invalidEncoding'],
    ['/../;x', 'aboveRoot'], ['/..;x', 'semicolon'], ['/a%2F;', 'encodedSeparator'], ['/a;%2F', 'semicolon'], ['/\u212a', 'notAPath'],
  ]) {
    assert.throws(() => routes.normalizePath(raw), (e) => e.reason === `path:${reason}`, raw);
  }
});

test('matches', () => {
  for (const [match, method, path, expected] of [
    ['GET /api/orders', 'GET', '/api/orders', true], ['GET /api/orders', 'GET', '/api/orders/', true],
    ['GET /api/orders/', 'GET', '/api/orders', true], ['GET /api/orders', 'GET', '/API/Orders', true], ['GET /Api/ORDERS', 'GET', '/api/orders', true],
    ['GET /api/orders', 'HEAD', '/api/orders', true], ['GET /api/orders', 'head', '/api/orders', true], ['HEAD /api/orders', 'GET', '/api/orders', false],
    ['POST /api/orders', 'post', '/api/orders', true], ['POST /api/orders', 'HEAD', '/api/orders', false], ['GET /api/orders', 'GEt', '/api/orders', true],
    ['GET /api/orders', 'GET\u017f', '/api/orders', false], ['POST /api/orders', 'PO\u017fT', '/api/orders', false],
    ['GET /api/*/items', 'GET', '/api/7/items/', true], ['GET /api/*', 'GET', '/api', false],
    ['GET /api/orders', 'POST', '/api/orders', false], ['* /api/orders', 'PATCH', '/api/orders', true],
    ['GET /api/*/items', 'GET', '/api/7/items', true], ['GET /api/*/items', 'GET', '/api/items', false],
    ['GET /api/*/items', 'GET', '/api/7/8/items', false], ['GET /api/*', 'GET', '/api/', false],
    ['POST /api/payments/**', 'POST', '/api/payments', true], ['POST /api/payments/**', 'POST', '/api/payments/', true],
    ['POST /api/payments/**', 'POST', '/api/payments/a/b/c', true], ['POST /api/payments/**', 'POST', '/api/paymentsx', false],
    ['* /**', 'OPTIONS', '/', true], ['* /**', 'GET', '/anything/at/all', true],
    ['GET /', 'GET', '/', true], ['GET /', 'GET', '/a', false],
    ['GET /api/orders', 'GET', '/api/orders?page=2', true], ['GET /api/orders', 'GET', '/api/%6Frders?x', true],
  ]) {
    assert.equal(routes.matches(routes.compileMatch(match), method, routes.normalizePath(path)), expected, `${match} ~ ${method} ${path}`);
  }
});

test('match texts that are not one are refused', () => {
  for (const text of ['GET', 'GET  /a', 'get /a', 'GET a', 'GET /a/**/b', 'GET /a//b', 'GET /a/../b', 'GET /a/%41', 'GET /a b', 'GET /a?x', 'G@T /a', '', 7]) {
    assert.throws(() => routes.compileMatch(text), TypeError, String(text));
  }
});

test('the first matching route wins and the rest fall to the mode given', () => {
  const table = routes.readRoutes([
    { name: 'one', match: 'GET /api/orders/special', mode: 'off' },
    { name: 'all', match: '* /api/orders/**', mode: 'enforce' },
    { name: 'never', match: 'GET /api/orders/special' },
  ]);
  assert.equal(routes.findRoute(table, 'GET', routes.normalizePath('/api/orders/special')).name, 'one');
  assert.equal(routes.findRoute(table, 'POST', routes.normalizePath('/api/orders/special')).name, 'all');
  assert.equal(routes.findRoute(table, 'GET', routes.normalizePath('/api/other')), null);
  assert.equal(table[2].mode, null, 'a route without a mode takes the one given');
  assert.equal(routes.strictestMode('monitor', table), 'enforce');
  assert.equal(routes.strictestMode('monitor', []), 'monitor');
});

test('route names', () => {
  for (const name of ['payments', 'a', '0-9', 'x'.repeat(40)]) assert.ok(routes.isRouteName(name), name);
  for (const name of ['', '-a', 'Payments', 'pay_ments', 'x'.repeat(41), '(unmatched)', 'é']) assert.ok(!routes.isRouteName(name), name);
});

test('routes are read as the management API reads them, every fault by pointer', () => {
  const many = Array.from({ length: 51 }, (_, i) => ({ name: `r${i}`, match: 'GET /' }));
  assert.throws(() => routes.readRoutes(many), /at most 50/);
  assert.throws(() => routes.readRoutes('GET /'), TypeError);
  const faults = (list) => {
    try {
      routes.readRoutes(list);
    } catch (error) {
      return [...error.message.matchAll(/(?:: |; )(\/routes\/\d+\/[a-z]+(?:\/[a-z]+)?):/g)].map((m) => m[1]).sort();
    }
    return [];
  };
  assert.deepEqual(faults([{ name: 'a', match: 'GET /a' }, { name: 'a', match: 'GET /b' }]), ['/routes/1/name']);
  assert.deepEqual(faults([{ match: 'GET /a' }, { name: 'b' }]), ['/routes/0/name', '/routes/1/match']);
  assert.deepEqual(faults([{ name: 'a', match: 'GET /a', mode: 'strict', require: { bound: 'yes' }, consume: 1, x: 1 }]),
    ['/routes/0/consume', '/routes/0/mode', '/routes/0/require/bound', '/routes/0/x']);
  assert.deepEqual(faults([{ name: 'a', match: 'GET /a/**/b' }]), ['/routes/0/match']);
  const [pay] = routes.readRoutes([{ name: 'pay', match: 'POST /api/pay', require: { bound: true, attestation: 'verified' }, consume: true }]);
  assert.deepEqual({ ...pay.require }, { bound: true, attestation: 'verified', debug: false });
  assert.equal(pay.consume, true);
  assert.equal(pay.mode, null);
  assert.deepEqual(routes.readRoutes(null), []);
});

test('a path with dot segments is judged under the stricter of its readings; the route as written at the same mode', () => {
  const table = routes.makeTable([
    { name: 'list', match: 'GET /api/orders', mode: 'enforce' },
    { name: 'one', match: 'GET /api/orders/*', mode: 'enforce', require: { bound: true } },
    { name: 'feed', match: 'GET /api/feed/*', mode: 'monitor' },
    { name: 'pay', match: 'POST /api/pay', mode: 'enforce' },
  ], 'off');
  const judged = (method, target) => {
    const found = routes.classify(table, method, target);
    return [found.name, found.mode];
  };
  // Express routes these to /api/orders/:id (as written), the normalization reads them as /api/orders/.
  assert.deepEqual(judged('GET', '/api/orders/.'), ['one', 'enforce']);
  assert.deepEqual(judged('GET', '/API/Orders/%2e/'), ['one', 'enforce']);
  assert.deepEqual(judged('GET', '/api/orders/..'), ['one', 'enforce']);
  assert.deepEqual(judged('GET', '/api/feed/..'), ['feed', 'monitor'], 'as written: a route, stricter than (unmatched) off');
  assert.deepEqual(judged('POST', '/api/x/../pay'), ['pay', 'enforce'], 'as normalized');
  assert.deepEqual(judged('GET', '/api/orders/7'), ['one', 'enforce']);
  assert.deepEqual(judged('GET', '/api/orders'), ['list', 'enforce']);
});

test('an absolute-form target is its path and query; the authority ends at / ? # or \\', () => {
  const { originForm } = require('../src/path.cjs');
  for (const [target, path] of [
    ['http://h/api/pay?x=1', '/api/pay?x=1'], ['HTTPS://h:8080/a', '/a'], ['http://h', '/'], ['http://h?x=1', '/?x=1'],
    ['http://h#f', '/#f'], ['http://h\\api/pay', '/\\api/pay'], ['http://user@h/a', '/a'], ['/a', '/a'], ['ftp://h/a', 'ftp://h/a'], ['*', '*'],
  ]) {
    assert.equal(originForm(target), path, target);
  }
});
