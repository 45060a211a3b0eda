// The README's quickstarts, run as a team would run them: each block marked <!-- quickstart: NAME --> written to a
// file and started with node, the package installed beside it (node_modules/gatehouse-receipts), Gatehouse's keys
// and spends from support/fake-gatehouse.mjs. Express is Debian's node-express; Fastify cannot be installed here, so
// its quickstart runs on a stand-in module implementing the part of Fastify's documented API it uses (Fastify(),
// decorateRequest, addHook('onRequest'), get with :params, listen) on node:http.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { fakeGatehouse } from './support/fake-gatehouse.mjs';
import { issuer, claims } from './support/receipts.mjs';
import { loadExpress } from './support/express.mjs';

const PACKAGE = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const README = fs.readFileSync(path.join(PACKAGE, 'README.md'), 'utf8');
const ENV = 'env_quickstart000000000';
const key = issuer('kid-quickstart');
const receipt = () => key.sign(claims(ENV, Math.floor(Date.now() / 1000) - 5, { sub: 'req_quickstart' }));

function quickstart(name) {
  const match = new RegExp(`<!-- quickstart: ${name} -->\\s*\`\`\`js\\n([\\s\\S]*?)\\n\`\`\``).exec(README);
  assert.ok(match, `README.md has no block marked <!-- quickstart: ${name} -->`);
  return match[1];
}

// The part of Fastify's API the quickstart uses, as Fastify documents it: an async onRequest hook that answers
// through reply.send() and returns the reply ends the request; a route handler's resolved value is sent as JSON.
const FASTIFY_STAND_IN = `
import http from 'node:http';
export default function Fastify() {
  const hooks = [];
  const routes = [];
  const decorations = {};
  const app = {
    decorateRequest(name, value) { decorations[name] = value; return app; },
    addHook(name, hook) { if (name !== 'onRequest') throw new Error('stand-in: onRequest only'); hooks.push(hook); return app; },
    get(pattern, handler) { routes.push({ method: 'GET', pattern, handler }); return app; },
    listen({ port, host }) {
      const server = http.createServer(async (raw, res) => {
        const [pathname, search = ''] = raw.url.split('?');
        const request = { id: '1', raw, method: raw.method, url: raw.url, headers: raw.headers, params: {},
          query: Object.fromEntries(new URLSearchParams(search)), ...decorations };
        const reply = { statusCode: 200, sent: false, headers: { 'content-type': 'application/json; charset=utf-8' },
          code(status) { this.statusCode = status; return this; },
          header(name, value) { this.headers[name.toLowerCase()] = value; return this; },
          send(payload) { this.sent = true; res.writeHead(this.statusCode, this.headers);
            res.end(typeof payload === 'string' ? payload : JSON.stringify(payload)); return this; } };
        for (const hook of hooks) { await hook(request, reply); if (reply.sent) return; }
        for (const route of routes) {
          const names = [];
          const regex = new RegExp('^' + route.pattern.replace(/:([a-zA-Z]+)/g, (_, n) => { names.push(n); return '([^/]+)'; }) + '$');
          const found = route.method === raw.method && regex.exec(pathname);
          if (found) { names.forEach((n, i) => (request.params[n] = found[i + 1])); return reply.send(await route.handler(request, reply)); }
        }
        reply.code(404).send({ message: 'Not Found' });
      });
      return new Promise((resolve) => server.listen(port, host, () => resolve(\`http://\${host}:\${port}\`)));
    },
  };
  return app;
}
`;

let fake;
const children = [];
const directories = [];
before(async () => {
  fake = await fakeGatehouse({ jwks: key.jwks, environment: ENV });
});
after(async () => {
  for (const child of children) child.kill('SIGTERM');
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
  await fake.close();
});

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the quickstart `name` with node; resolves with its base URL once it listens. */
async function start(name, modules = {}) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), `gatehouse-quickstart-${name}-`));
  directories.push(directory);
  fs.mkdirSync(path.join(directory, 'node_modules'));
  fs.symlinkSync(PACKAGE, path.join(directory, 'node_modules', 'gatehouse-receipts'), 'dir');
  for (const [module, target] of Object.entries(modules)) {
    if (typeof target === 'string') {
      fs.symlinkSync(target, path.join(directory, 'node_modules', module), 'dir');
    } else {
      fs.mkdirSync(path.join(directory, 'node_modules', module));
      fs.writeFileSync(path.join(directory, 'node_modules', module, 'package.json'), JSON.stringify({ name: module, type: 'module', main: 'index.js' }));
      fs.writeFileSync(path.join(directory, 'node_modules', module, 'index.js'), target.source);
    }
  }
  fs.writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(path.join(directory, 'app.js'), quickstart(name));
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['app.js'], {
    cwd: directory,
    env: { ...process.env, GATEHOUSE_URL: fake.url, GATEHOUSE_ENVIRONMENT: ENV, GATEHOUSE_SECRET_KEY: fake.secretKey, PORT: String(port),
      NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(path.delimiter) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  for (let waited = 0; waited < 10000; waited += 50) {
    if (child.exitCode !== null) assert.fail(`the ${name} quickstart exited with ${child.exitCode}:\n${output}`);
    const listening = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket.end() && true));
      socket.on('error', () => resolve(false));
    });
    if (listening) return `http://127.0.0.1:${port}`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`the ${name} quickstart did not listen within 10 s:\n${output}`);
}

async function call(base, path, headers = {}) {
  const response = await fetch(base + path, { headers });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

test('Express quickstart (Debian node-express)', async () => {
  loadExpress();
  const expressDirectory = path.dirname(createRequire(import.meta.url).resolve('express/package.json'));
  const base = await start('express', { express: expressDirectory });
  const refused = await call(base, '/api/orders/1');
  assert.deepEqual([refused.status, refused.type, refused.body.outcome, refused.body.route], [401, 'application/problem+json', 'missing', 'orders']);
  const passed = await call(base, '/api/orders/1', { 'antibot-token': receipt() });
  assert.deepEqual([passed.status, passed.body], [200, { outcome: 'verified', receipt: 'req_quickstart' }]);
  assert.deepEqual((await call(base, '/api/other')).body, { outcome: 'missing', receipt: null });
});

test('Fastify quickstart (on a stand-in for Fastify)', async () => {
  const base = await start('fastify', { fastify: { source: FASTIFY_STAND_IN } });
  const refused = await call(base, '/api/orders/1');
  assert.deepEqual([refused.status, refused.type, refused.body.outcome], [401, 'application/problem+json', 'missing']);
  const passed = await call(base, '/api/orders/1', { 'antibot-token': receipt() });
  assert.deepEqual([passed.status, passed.body], [200, { outcome: 'verified', route: 'orders' }]);
});

test('check(req) quickstart under node:http', async () => {
  const base = await start('node-http');
  const refused = await call(base, '/api/other');
  assert.deepEqual([refused.status, refused.type, refused.body.outcome, refused.body.route], [401, 'application/problem+json', 'missing', '(unmatched)']);
  assert.deepEqual(await call(base, '/api/feed'), { status: 200, type: 'application/json', body: { outcome: 'missing' } });
  assert.deepEqual((await call(base, '/api/other', { 'antibot-token': receipt() })).body, { outcome: 'verified' });
});
