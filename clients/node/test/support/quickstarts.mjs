// The README's quickstarts, run as a team would run them: the block marked <!-- quickstart: NAME --> written to a
// file and started with node in a directory of its own, the package installed beside it
// (node_modules/gatehouse-receipts), Gatehouse's URL, environment and secret key in its environment.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.mjs';

const PACKAGE = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const README = fs.readFileSync(path.join(PACKAGE, 'README.md'), 'utf8');

/** The code of the README block marked <!-- quickstart: NAME -->. */
export function quickstart(name) {
  const match = new RegExp(`<!-- quickstart: ${name} -->\\s*\`\`\`js\\n([\\s\\S]*?)\\n\`\`\``).exec(README);
  assert.ok(match, `README.md has no block marked <!-- quickstart: ${name} -->`);
  return match[1];
}

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the README's quickstart `name` with node against `gatehouseUrl`; resolves with `{base, child, output,
 * cleanUp}` once it listens. `modules` are linked (a directory) or written (`{source}`) into its node_modules.
 */
export async function startQuickstart(name, { gatehouseUrl, environment, secretKey, modules = {} }) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), `gatehouse-quickstart-${name}-`));
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
  const output = { text: '' };
  const child = spawn(process.execPath, ['app.js'], {
    cwd: directory,
    env: { ...process.env, GATEHOUSE_URL: gatehouseUrl, GATEHOUSE_ENVIRONMENT: environment, GATEHOUSE_SECRET_KEY: secretKey, PORT: String(port),
      NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(path.delimiter) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output.text += chunk));
  child.stderr.on('data', (chunk) => (output.text += chunk));
  await waitFor(async () => {
    if (child.exitCode !== null) assert.fail(`the ${name} quickstart exited with ${child.exitCode}:\n${output.text}`);
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket.end() && true));
      socket.on('error', () => resolve(false));
    });
  }, `the ${name} quickstart to listen`);
  const cleanUp = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(directory, { recursive: true, force: true });
  };
  return { base: `http://127.0.0.1:${port}`, child, output, cleanUp };
}
