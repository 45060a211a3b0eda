// A real `gatehouse serve` for the end-to-end tests, started as Tests/EndToEnd/api_schema.py starts it: the built
// binary (GATEHOUSE_BINARY, else .build/debug/gatehouse of the repository) on a fresh SQLite file and a free port, its
// access log at --log-level info in a file (so JWKS fetches can be counted), a management token made with the CLI.
// Also the phone's side of POST /api/v4/assess: Tests/EndToEnd/signed_request.py ported (the HMAC-signed request).
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(fileURLToPath(new URL('../../../../', import.meta.url)));
export const V1 = '/api/management/v1';

/** The gatehouse binary to run, or null when there is none (then the end-to-end tests are skipped, saying why). */
export function gatehouseBinary() {
  const candidates = [process.env.GATEHOUSE_BINARY, path.join(ROOT, '.build', 'debug', 'gatehouse')].filter(Boolean);
  return candidates.find((candidate) => fs.existsSync(candidate)) ?? null;
}

/** The environment for the binary: ours without GATEHOUSE_* (every option of the CLI reads one). */
function childEnvironment() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEHOUSE_')));
}

export async function startGatehouse(binary) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-node-'));
  const database = path.join(directory, 'gatehouse.sqlite');
  const env = childEnvironment();
  const cli = (...args) => execFileSync(binary, [...args, '--database', database, '--resources', ROOT], { env, encoding: 'utf8', timeout: 60000 }).trim();
  const token = cli('token', 'create', '--name', 'node-e2e', '--scope', 'write');
  const logPath = path.join(directory, 'serve.log');
  const log = fs.openSync(logPath, 'w');
  const child = spawn(binary, ['serve', '--host', '127.0.0.1', '--port', '0', '--database', database, '--resources', ROOT,
    '--log-level', 'info', '--device-rate-per-address', '0', '--device-rate-per-key', '0'], { env, stdio: ['ignore', 'pipe', log] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const lines = readline.createInterface({ input: child.stdout });
  const first = await Promise.race([
    new Promise((resolve) => lines.once('line', resolve)),
    exited.then(({ code }) => { throw new Error(`gatehouse serve exited with ${code}: ${fs.readFileSync(logPath, 'utf8').slice(-2000)}`); }),
    new Promise((_, reject) => setTimeout(() => reject(new Error('gatehouse serve did not start within 30 s')), 30000).unref()),
  ]);
  lines.on('line', () => undefined); // keep reading stdout
  const prefix = 'gatehouse listening on ';
  if (!first.startsWith(prefix)) throw new Error(`gatehouse serve did not start: ${first}`);
  const base = first.slice(prefix.length).trim();

  async function api(method, route, body) {
    const response = await fetch(base + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text === '' ? null : JSON.parse(text);
  }

  /** The access log's requests, parsed. */
  function requests() {
    return fs.readFileSync(logPath, 'utf8').split('\n').filter((line) => line.startsWith('{')).map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return {};
      }
    }).filter((entry) => entry.msg === 'request');
  }

  return {
    base,
    token,
    database,
    directory,
    logPath,
    api,
    requests,
    /** How many times GET /api/v4/receipts/keys was served (200 or 304), from the access log. */
    keyFetches: () => requests().filter((entry) => entry.method === 'GET' && entry.path === '/api/v4/receipts/keys').length,
    /** Lines the server logged at level error. */
    errors: () => fs.readFileSync(logPath, 'utf8').split('\n').filter((line) => line.includes('"level":"error"')),
    /** `gatehouse receipts rotate-key [--revoke-now]` beside the running server. */
    rotateKey: ({ revokeNow = false } = {}) => cli('receipts', 'rotate-key', ...(revokeNow ? ['--revoke-now'] : [])),
    /** SIGTERM; resolves with the exit code. */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return (await exited).code;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
      const { code } = await exited;
      clearTimeout(timer);
      fs.closeSync(log);
      return code;
    },
    cleanUp() {
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

const b64url = (bytes) => Buffer.from(bytes).toString('base64url');

/**
 * The JSON body of an iOS assessment (signed_request.py's ios_assess_body): `signedFields` serialized as `signed`, a
 * fresh timestamp and nonce, the HMAC-SHA256 of the canonical text under the public key, and `attestation` if given.
 */
export function iosAssessBody(publicKey, signedFields, attestation) {
  const signed = JSON.stringify(signedFields);
  const timestamp = Date.now();
  const nonce = b64url(crypto.randomBytes(16));
  const canonical = ['gatehouse-v2', 'ios', String(timestamp), nonce, 'signed:' + crypto.createHash('sha256').update(signed).digest('hex')].join('\n');
  const signature = b64url(crypto.createHmac('sha256', Buffer.from(publicKey, 'utf8')).update(canonical).digest());
  const body = { apiKey: publicKey, platform: 'ios', request: { timestamp, nonce, signature }, signed };
  if (attestation !== undefined) body.attestation = attestation;
  return body;
}

/** A receipt from POST /api/v4/assess: bound to `receiptKey` (a phone's SPKI DER) when given, with `attestation`. */
export async function assess(base, publicKey, { receiptKey, attestation } = {}) {
  const signed = { app: { id: 'com.example.yourapp' }, device: { id: 'node-e2e' } };
  if (receiptKey !== undefined) signed.receiptKey = Buffer.from(receiptKey).toString('base64');
  const response = await fetch(base + '/api/v4/assess', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(iosAssessBody(publicKey, signed, attestation)),
  });
  const answer = await response.json();
  if (response.status !== 200 || typeof answer.sessionToken !== 'string') throw new Error(`assess: ${response.status} ${JSON.stringify(answer)}`);
  return answer.sessionToken;
}

/** The header and claims of a compact JWS, unverified. */
export function decodeJWS(token) {
  const [header, payload] = token.split('.');
  return { header: JSON.parse(Buffer.from(header, 'base64url')), claims: JSON.parse(Buffer.from(payload, 'base64url')) };
}
