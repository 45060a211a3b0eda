// A route protects a handler only if every request the API would route to that handler is judged under that route, or
// a stricter one (docs/device-api.md "Enforcement that cannot be walked around"). Seeded: random route tables (literal
// segments in mixed case, `*`, a final `**`, methods and modes), each mounted on a real Express 4 app as the matching
// Express paths (`*` → `:p`, `**` → `/prefix` and `/prefix/(.*)`: Debian's Express 4 uses path-to-regexp 6) behind
// check(req); random spellings of each route's
// paths (case changes, trailing slash, HEAD for GET, percent-encoded letters, dot segments, double slashes, `;`, `#`
// and `\` raw or encoded, queries, absolute-form targets; odd values in `*` segments such as `.`, `..`, `%2e`) sent
// raw over a socket. Express decides which handler runs; every spelling it routes to a route's handler must have
// been judged under that route, or under a mode at least as strict. GATEHOUSE_PROPERTY_SEED replays a run;
// GATEHOUSE_PROPERTY_ROUNDS makes it longer.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { createCheck } from '../index.js';
import { loadExpress } from './support/express.mjs';
import { issuer } from './support/receipts.mjs';
import { random } from './support/random.mjs';

const SEED = Number(process.env.GATEHOUSE_PROPERTY_SEED ?? 20261206);
const TABLES = Math.max(4, Math.round(Number(process.env.GATEHOUSE_PROPERTY_ROUNDS ?? 5000) / 125));
const STRICTNESS = { off: 0, monitor: 1, enforce: 2 };
const key = issuer('kid-routing');

const WORDS = ['api', 'v1', 'orders', 'payments', 'Items', 'users', 'me', 'export', 'a-b', 'x_y', 'z9', 'refund', 'API', 'Pay'];
const VALUES = ['7', 'abc', 'X-1', '%41', '.', '..', '%2e', '%2E%2e', 'a;b', 'a%3Bb', 'a|b', '~', '%C3%A9', 'x.y', '..a', '%25'];

function table(r) {
  const count = 1 + r.int(5);
  return Array.from({ length: count }, (_, i) => {
    const segments = Array.from({ length: r.int(4) + (r() < 0.9 ? 1 : 0) }, () => (r() < 0.7 ? r.pick(WORDS) : '*'));
    if (r() < 0.2) segments.push('**');
    const method = r.pick(['GET', 'GET', 'POST', 'PUT', 'DELETE', '*']);
    const mode = r.pick([undefined, 'off', 'monitor', 'enforce', 'enforce']);
    return { name: `r${i}`, match: `${method} /${segments.join('/')}`, mode, segments, method };
  });
}

/** The Express path(s) that route as the pattern does (the `**` rest may be empty: `/prefix` and `/prefix/(.*)`). */
function expressPaths(route) {
  let n = 0;
  const parts = route.segments.map((segment) => (segment === '*' ? `:p${n++}` : segment));
  if (parts.at(-1) !== '**') return '/' + parts.join('/');
  const prefix = '/' + parts.slice(0, -1).join('/');
  return [prefix, (prefix === '/' ? '' : prefix) + '/(.*)'];
}

/** A path the pattern stands for, its `*` segments filled with values Express routes to a `:p` parameter. */
function instance(r, route) {
  const parts = [];
  for (const segment of route.segments) {
    if (segment === '*') parts.push(r.pick(VALUES));
    else if (segment === '**') for (let i = r.int(3); i > 0; i--) parts.push(r.pick([...WORDS, ...VALUES]));
    else parts.push(segment);
  }
  return '/' + parts.join('/');
}

const TRANSFORMS = {
  caseFlip: (r, p) => p.replace(/(%[0-9A-Fa-f]{2})|[A-Za-z]/g, (c, enc) => (enc ? c : r() < 0.5 ? c : c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())),
  trailingSlash: (r, p) => (p.endsWith('/') ? p : p + '/'),
  encodedLetter: (r, p) => p.replace(/(%[0-9A-Fa-f]{2})|[A-Za-z0-9~_.-]/g, (c, enc) => (enc || r() < 0.7 ? c : '%' + c.charCodeAt(0).toString(16)[r() < 0.5 ? 'toUpperCase' : 'toLowerCase']())),
  dotSegment: (r, p) => insertAtSlash(r, p, '/.'),
  dotDot: (r, p) => insertAtSlash(r, p, '/zz/..'),
  doubleSlash: (r, p) => insertAtSlash(r, p, '/'),
  semicolon: (r, p) => insertAtSegmentEnd(r, p, r.pick([';x', ';', '%3B', '%3bv=1'])),
  fragment: (r, p) => insertAtSegmentEnd(r, p, r.pick(['#x', '#', '%23', '#?q=1'])),
  backslash: (r, p) => (r() < 0.5 ? insertAtSegmentEnd(r, p, r.pick(['%5C', '%5c', '\\'])) : p.replace('/', r.pick(['\\', '%5C']))),
  query: (r, p) => p + r.pick(['?x=1', '?a=%3B#b', '?', '?../..']),
  absolute: (r, p) => r.pick(['http://h', 'HTTP://example.com', 'https://h:8080']) + p,
};

function insertAtSlash(r, p, text) {
  const slashes = [...p.matchAll(/\//g)].map((m) => m.index);
  const at = r.pick(slashes);
  return p.slice(0, at) + text + p.slice(at);
}

function insertAtSegmentEnd(r, p, text) {
  const ends = [...p.matchAll(/[^/](?=\/|$)/g)].map((m) => m.index + 1);
  if (ends.length === 0) return p + text;
  const at = r.pick(ends);
  return p.slice(0, at) + text + p.slice(at);
}

/** One raw request; resolves with the handler that ran and the judgement it saw (from headers), or null. */
function raw(port, method, target) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      const header = (name) => new RegExp(`^${name}: (.*)$`, 'mi').exec(answer)?.[1].trim() ?? null;
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), handler: header('x-handler'), route: header('x-judged-route'), mode: header('x-judged-mode') });
    });
    socket.on('error', () => undefined);
    socket.write(`${method} ${target} HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
}

test(`every spelling Express routes to a route's handler is judged under that route or a stricter mode (seed ${SEED}, ${TABLES} tables)`, async (t) => {
  const express = loadExpress();
  const r = random(SEED);
  const routedBy = Object.fromEntries(Object.keys(TRANSFORMS).map((name) => [name, 0]));
  let routed = 0;
  let head = 0;
  for (let n = 0; n < TABLES; n++) {
    const routes = table(r);
    const environmentMode = r.pick(['off', 'monitor', 'enforce']);
    const spec = routes.map(({ name, match, mode }) => ({ name, match, ...(mode ? { mode } : {}) }));
    const check = createCheck({ jwks: key.jwks, environment: 'env_routing000000000000', routes: spec, mode: environmentMode, report: false, logger: null });
    const app = express();
    app.use((req, res, next) => {
      check(req).then((result) => {
        res.setHeader('x-judged-route', result.route ?? 'null');
        res.setHeader('x-judged-mode', result.mode);
        next();
      }, next);
    });
    routes.forEach((route, i) => {
      const verb = route.method === '*' ? 'all' : route.method.toLowerCase();
      app[verb](expressPaths(route), (req, res) => res.set('x-handler', String(i)).end('ran'));
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address();
    try {
      for (const route of routes) {
        for (let s = 0; s < 12; s++) {
          let target = instance(r, route);
          const applied = [];
          for (let k = r.int(4); k > 0; k--) {
            const name = r.pick(Object.keys(TRANSFORMS));
            target = TRANSFORMS[name](r, target);
            applied.push(name);
          }
          let method = route.method === '*' ? r.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD']) : route.method;
          if (method === 'GET' && r() < 0.4) method = 'HEAD';
          const answer = await raw(port, method, target);
          if (answer.handler === null) continue;
          const ran = routes[Number(answer.handler)];
          const own = ran.mode ?? environmentMode;
          const ok = answer.route === ran.name || STRICTNESS[answer.mode] >= STRICTNESS[own];
          assert.ok(ok, `seed ${SEED}, table ${n}: ${method} ${JSON.stringify(target)} (${applied.join(', ') || 'as written'}) ran ${ran.name} (${ran.match}, ${own}) but was judged under ${answer.route} (${answer.mode}); routes ${JSON.stringify(spec)}, environment ${environmentMode}`);
          routed++;
          if (method === 'HEAD') head++;
          for (const name of new Set(applied)) routedBy[name]++;
        }
      }
    } finally {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
      await check.close();
    }
  }
  t.diagnostic(`routed by Express: ${JSON.stringify({ routed, head, routedBy })}`);
  // Express routed spellings of every kind (the loop reached past its own 404s).
  assert.ok(routed >= TABLES * 10, `routed ${routed}`);
  assert.ok(head > 0, 'HEAD routed to GET handlers');
  for (const name of ['caseFlip', 'trailingSlash', 'semicolon', 'fragment', 'query', 'absolute', 'encodedLetter']) {
    assert.ok(routedBy[name] > 0, `Express routed a ${name} spelling: ${JSON.stringify(routedBy)}`);
  }
});
