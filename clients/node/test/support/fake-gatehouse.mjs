// A small stand-in for Gatehouse's backend endpoints on a real node:http server, for tests that need to steer it
// (fail, stall, answer 503): GET /api/v4/receipts/keys (Cache-Control, ETag, If-None-Match → 304), GET
// /api/v4/edge/routes (the environment's enforcement, with the secret key; ETag, max-age=30, 304), POST
// /api/v4/receipts/verify (the library's own offline check plus spent receipts, by sub), POST
// /api/ingest/v1/enforcement (counts once per Idempotency-Key). The real server is tested end to end in e2e.test.mjs.
import http from 'node:http';
import crypto from 'node:crypto';
import { verifySessionToken } from '../../index.js';

export async function fakeGatehouse({ jwks, environment, secretKey = 'sk_test_fake', maxAge = 300, edge = { mode: 'monitor', routes: [] } }) {
  const state = {
    /** What GET /api/v4/edge/routes answers: the environment's enforcement (and its id, `environment` by default). */
    edge: { environment, ...edge },
    /** 'ok', 'down' (503), 'stall' (never answers), 'refuse' (401, as for a revoked key). */
    edgeMode: 'ok',
    /** Each GET /api/v4/edge/routes: {ifNoneMatch, status}. */
    edgeFetches: [],
    jwks,
    maxAge,
    keyFetches: [],
    /** 'ok', 'down' (503), 'stall' (never answers), 'garbage' (200 with a body that is not a JWKS). */
    keysMode: 'ok',
    verifyMode: 'ok',
    ingestMode: 'ok',
    /** Answers to fail first (a count of 503s) before taking reports. */
    ingestFailures: 0,
    verifyCalls: [],
    spent: new Set(),
    reports: [],
    idempotency: new Map(),
    counted: [],
    authorizations: [],
  };
  const etag = () => '"' + crypto.createHash('sha256').update(JSON.stringify(state.jwks)).digest('base64url').slice(0, 22) + '"';
  const json = (res, status, body, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      state.authorizations.push(req.headers.authorization ?? null);
      if (req.method === 'GET' && req.url === '/api/v4/receipts/keys') {
        state.keyFetches.push({ ifNoneMatch: req.headers['if-none-match'] ?? null });
        if (state.keysMode === 'stall') return;
        if (state.keysMode === 'down') return json(res, 503, { title: 'down' });
        if (state.keysMode === 'garbage') return json(res, 200, { keys: 'none' });
        const tag = etag();
        const headers = { 'cache-control': `public, max-age=${state.maxAge}`, etag: tag };
        if (req.headers['if-none-match'] === tag) {
          res.writeHead(304, headers);
          return res.end();
        }
        return json(res, 200, state.jwks, { ...headers, 'content-type': 'application/jwk-set+json' });
      }
      if (req.headers.authorization !== `Bearer ${secretKey}`) return json(res, 401, { title: 'Unauthorized' });
      if (req.method === 'GET' && req.url === '/api/v4/edge/routes') {
        const fetch = { ifNoneMatch: req.headers['if-none-match'] ?? null, status: null };
        state.edgeFetches.push(fetch);
        if (state.edgeMode === 'stall') return undefined;
        if (state.edgeMode === 'down') return json(res, (fetch.status = 503), { title: 'down' });
        if (state.edgeMode === 'refuse') return json(res, (fetch.status = 401), { title: 'Unauthorized' });
        const tag = '"' + crypto.createHash('sha256').update(JSON.stringify(state.edge)).digest('base64url').slice(0, 16) + '"';
        const headers = { 'cache-control': 'private, max-age=30', etag: tag };
        if (req.headers['if-none-match'] === tag) {
          fetch.status = 304;
          res.writeHead(304, headers);
          return res.end();
        }
        return json(res, (fetch.status = 200), state.edge, headers);
      }
      if (req.method === 'POST' && req.url === '/api/v4/receipts/verify') {
        const input = JSON.parse(body);
        state.verifyCalls.push(input);
        if (state.verifyMode === 'down') return json(res, 503, { title: 'down' });
        if (state.verifyMode === 'stall') return;
        const require = input.require ?? {};
        const answer = verifySessionToken(input.token, {
          jwks: state.jwks, environment, method: input.method, pathAndQuery: input.pathAndQuery, proof: input.proof,
          policy: { bound: require.bound === true, attestation: require.attestation ?? null, debug: require.debug === true },
        });
        let consumed = false;
        const sub = answer.claims?.sub;
        if (sub !== undefined && state.spent.has(sub)) answer.reasons.push('consumed');
        else if (sub !== undefined && input.consume && answer.reasons.length === 0) {
          state.spent.add(sub);
          consumed = true;
        }
        return json(res, 200, { valid: answer.reasons.length === 0, reasons: answer.reasons, environment: answer.claims?.env ?? null,
          platform: answer.platform, action: answer.action, attestation: answer.claims?.att ?? null, bound: answer.bound, expiresAt: null, consumed });
      }
      if (req.method === 'POST' && req.url === '/api/ingest/v1/enforcement') {
        const key = req.headers['idempotency-key'] ?? null;
        state.reports.push({ key, body: JSON.parse(body) });
        if (state.ingestMode === 'stall') return;
        if (state.ingestFailures > 0) {
          state.ingestFailures--;
          // Taken, but the answer is lost: the retry must not count it twice.
          if (key !== null && !state.idempotency.has(key)) {
            state.idempotency.set(key, true);
            state.counted.push(...JSON.parse(body).counts);
          }
          return json(res, 503, { title: 'down' });
        }
        if (key === null || !state.idempotency.has(key)) {
          if (key !== null) state.idempotency.set(key, true);
          state.counted.push(...JSON.parse(body).counts);
        }
        return json(res, 202, { accepted: JSON.parse(body).counts.length });
      }
      json(res, 404, { title: 'Not found' });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    state,
    secretKey,
    /** Sum of counted calls by route and outcome. */
    totals() {
      const totals = {};
      for (const entry of state.counted) {
        totals[entry.route] ??= {};
        totals[entry.route][entry.outcome] = (totals[entry.route][entry.outcome] ?? 0) + entry.count;
      }
      return totals;
    },
    close() {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
