'use strict';
// The backend's own enforcement (DEVICE-API.md "The backend libraries", 3): routes in the environment's `match`
// syntax, judged as the edge check judges them (Sources/Gatehouse/Enforcement/EdgeCheck.swift), with the same
// outcomes, modes and refusals; a `consume` route spends its receipt through POST /api/v4/receipts/verify (the only
// network call in the request path); outcome counts reported once a minute with a secret key.

const { verifySessionToken, readPolicy, isSource } = require('./verify.cjs');
const { JWKSSource, GatehouseUnavailableError } = require('./jwks-source.cjs');
const { keySetOf } = require('./keys.cjs');
const { serverVerify } = require('./consume.cjs');
const { Reporter } = require('./report.cjs');
const routes = require('./routes.cjs');

const TOKEN_HEADER = 'antibot-token';
const PROOF_HEADER = 'antibot-pop';
const INVALID_REASONS = new Set(['malformed', 'signatureInvalid', 'expired', 'wrongEnvironment', 'session:proof']);
/** Seconds a client is asked to wait when the call cannot be judged (Retry-After). */
const RETRY_AFTER_SECONDS = 5;

// The refusals of the edge check (EdgeAPI.refusal), so that a phone reads the same problem wherever it was refused.
const REFUSALS = {
  missing: ['receipt-missing', 'Receipt required', 'This call needs a Gatehouse receipt in the antibot-token header.'],
  invalid: ['receipt-invalid', 'Receipt not valid', 'The receipt (or its request proof, or the path) does not hold: see reasons.'],
  reused: ['receipt-reused', 'Receipt already used', 'This call spends its receipt, and the receipt was spent before: assess again for a new one.'],
  challenge: ['challenge', 'Attestation required', 'Attack mode is on and this receipt was issued without a verified attestation: attest and assess again.'],
  unmet: ['receipt-unmet', "Receipt does not meet the route's requirements", 'The route requires more of the receipt: see reasons.'],
};

/** The value of header `name` of a Node, Express, Fastify or WHATWG (fetch) request, or undefined. */
function headerOf(req, name) {
  const headers = req?.headers;
  if (headers === null || typeof headers !== 'object') return undefined;
  let value = typeof headers.get === 'function' ? headers.get(name) : headers[name];
  if (Array.isArray(value)) value = value.join(', ');
  return typeof value === 'string' ? value : undefined;
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;
const LATIN1 = /^[\x00-\xff]*$/;

/** The request target as the phone sent it (and signed it): path and query. */
function targetOf(req) {
  let target = typeof req?.originalUrl === 'string' ? req.originalUrl : req?.url;
  if (typeof target !== 'string') return '';
  if (target.charCodeAt(0) !== 0x2f) {
    // An absolute URL (a fetch Request's url, an absolute-form request target): its path and query.
    const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*([^#]*)/.exec(target);
    if (match !== null) target = match[1] === '' ? '/' : match[1];
  }
  if (NON_ASCII.test(target) && LATIN1.test(target)) {
    // Node's HTTP parser hands bytes outside ASCII over as Latin-1 text: read them back as the UTF-8 that was sent.
    const bytes = Buffer.from(target, 'latin1');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) target = text;
  }
  return target;
}

function problemOf(status, slug, title, detail, outcome, route, reasons) {
  return { type: `/problems/${slug}`, title, status, detail, outcome, route, reasons };
}

/**
 * Reads the options of createCheck/gatehouse and makes what they need once: routes, key source, reporter.
 */
function setUp(options) {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object {gatehouseUrl, environment, routes, mode, secretKey, report}');
  const { gatehouseUrl, environment, secretKey = null, report = true } = options;
  if (typeof environment !== 'string' || environment.length === 0) throw new TypeError('environment must be the environment id (env_…)');
  if (secretKey !== null && (typeof secretKey !== 'string' || !secretKey.startsWith('sk_'))) {
    throw new TypeError("secretKey must be one of the environment's secret keys (sk_…)");
  }
  const table = routes.readRoutes(options.routes);
  const mode = routes.readMode(options.mode, 'monitor');
  if (table.some((route) => route.consume) && secretKey === null) {
    throw new TypeError('a consume route spends its receipt on Gatehouse: give secretKey');
  }
  let keys = options.jwks ?? null;
  if (keys === null) {
    if (gatehouseUrl === undefined || gatehouseUrl === null) throw new TypeError("gatehouseUrl must be Gatehouse's base URL");
    keys = new JWKSSource(gatehouseUrl, { timeoutMs: options.timeoutMs, fetch: options.fetch, now: options.now });
  } else if (!isSource(keys)) {
    keys = keySetOf(keys);
  }
  const reporter = secretKey !== null && report !== false && gatehouseUrl != null
    ? new Reporter({ gatehouseUrl, secretKey, intervalMs: options.reportIntervalMs, fetch: options.fetch, now: options.now, logger: options.logger })
    : null;
  if (reporter !== null) reporter.start();
  // Fetch the keys now, so that the first call does not wait for them (a failure is retried on the first call).
  if (isSource(keys)) Promise.resolve().then(() => keys.get()).catch(() => undefined);
  const settings = { gatehouseUrl, environment, mode, routes: table, strictest: routes.strictestMode(mode, table), keys, reporter };
  Object.defineProperty(settings, 'secretKey', { value: secretKey, enumerable: false });
  settings.timeoutMs = options.timeoutMs ?? 2000;
  settings.fetch = options.fetch;
  return settings;
}

/** A judgement as check(req) answers it. */
function answer(settings, mode, route, outcome, reasons, verification) {
  const allow = mode !== 'enforce' || outcome === 'verified';
  const headers = { 'gatehouse-outcome': outcome, 'gatehouse-route': route };
  if (allow) return { allow, status: 200, outcome, route, verification, problem: null, headers };
  const status = outcome === 'challenge' ? 403 : 401;
  const [slug, title, detail] = REFUSALS[outcome];
  headers['content-type'] = 'application/problem+json';
  headers['cache-control'] = 'no-store';
  return { allow, status, outcome, route, verification, problem: problemOf(status, slug, title, detail, outcome, route, reasons), headers };
}

/** A call that was not judged: its route's mode is off. */
function unjudged(route) {
  return { allow: true, status: 200, outcome: null, route, verification: null, problem: null, headers: {} };
}

/** A call that cannot be judged now: 503 with Retry-After under enforce, passed (and not counted) otherwise. */
function cannotJudge(mode, route, why) {
  if (mode !== 'enforce') return { ...unjudged(route), unavailable: why };
  const problem = problemOf(503, 'receipt-check-unavailable', 'Receipt cannot be checked now',
    'Gatehouse cannot be reached to check this receipt: try again shortly.', null, route, []);
  const headers = { 'content-type': 'application/problem+json', 'cache-control': 'no-store', 'retry-after': String(RETRY_AFTER_SECONDS), 'gatehouse-route': route };
  return { allow: false, status: 503, outcome: null, route, verification: null, problem, headers, unavailable: why };
}

/** Judges one call as EdgeCheck.judge does. */
async function judge(settings, req) {
  const method = typeof req?.method === 'string' ? req.method : '';
  const target = targetOf(req);
  let segments;
  try {
    segments = routes.normalizePath(target);
  } catch (refusal) {
    // A path two parsers could read differently: invalid, under the strictest mode the environment has.
    if (settings.strictest === 'off') return unjudged(routes.UNMATCHED);
    settings.reporter?.count(routes.UNMATCHED, 'invalid');
    return answer(settings, settings.strictest, routes.UNMATCHED, 'invalid', [refusal.reason], null);
  }
  const route = routes.findRoute(settings.routes, method, segments);
  const name = route === null ? routes.UNMATCHED : route.name;
  const mode = route?.mode ?? settings.mode;
  if (mode === 'off') return unjudged(name);
  const token = headerOf(req, TOKEN_HEADER);
  let outcome;
  let verification = null;
  let reasons = [];
  if (token === undefined || token === '') {
    outcome = 'missing';
  } else {
    const proof = headerOf(req, PROOF_HEADER) ?? null;
    const policy = route?.require ?? null;
    try {
      verification = await verifySessionToken(token, { jwks: settings.keys, environment: settings.environment, method, pathAndQuery: target, proof, policy });
    } catch (error) {
      if (error instanceof GatehouseUnavailableError) return cannotJudge(mode, name, error.message);
      throw error;
    }
    reasons = verification.reasons;
    const isChallenge = verification.action === 'challenge';
    if (route?.consume && !reasons.some((reason) => INVALID_REASONS.has(reason))) {
      let spent;
      try {
        spent = await serverVerify(token, {
          gatehouseUrl: settings.gatehouseUrl, secretKey: settings.secretKey, method, pathAndQuery: target, proof, policy: readPolicy(policy),
          timeoutMs: settings.timeoutMs, fetch: settings.fetch,
        }, !isChallenge);
      } catch (error) {
        // Only a receipt valid offline needed spending; one already refused offline (unmet, challenge) stays
        // refused, though Gatehouse could not say whether it was spent before.
        if (reasons.length === 0 && !isChallenge) return cannotJudge(mode, name, error.message);
        spent = null;
      }
      if (spent !== null) {
        reasons = spent.reasons;
        verification = { ...verification, valid: spent.valid, reasons, consumed: spent.consumed };
      }
    }
    if (reasons.some((reason) => INVALID_REASONS.has(reason))) outcome = 'invalid';
    else if (reasons.includes('consumed')) outcome = 'reused';
    else if (isChallenge) outcome = 'challenge';
    else if (reasons.length > 0) outcome = 'unmet';
    else outcome = 'verified';
  }
  settings.reporter?.count(name, outcome);
  return answer(settings, mode, name, outcome, reasons.slice(), verification);
}

/**
 * The framework-free check: `check(req)` judges a request (Node's IncomingMessage, Express, Fastify, or a fetch
 * Request) and answers `{allow, status, outcome, route, verification, problem, headers}`: when `allow` is false,
 * answer `status` with `headers` and the problem as JSON. Never rejects: a failure to judge is a 503 under enforce.
 * `check.close()` stops the reporting timer and sends what is counted; `check.flush()` sends it now.
 */
function createCheck(options) {
  const settings = setUp(options);
  const check = async (req) => {
    try {
      return await judge(settings, req);
    } catch (error) {
      return cannotJudge(settings.strictest, routes.UNMATCHED, error?.message ?? String(error));
    }
  };
  check.flush = () => (settings.reporter === null ? Promise.resolve() : settings.reporter.flush());
  check.close = () => (settings.reporter === null ? Promise.resolve() : settings.reporter.close());
  check.keys = settings.keys;
  check.reporter = settings.reporter;
  return check;
}

/** Writes a refusal on a Node response (Express's too). */
function refuse(res, result) {
  if (res.headersSent) return;
  res.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers)) if (value !== null) res.setHeader(name, value);
  res.end(JSON.stringify(result.problem));
}

/**
 * Connect-style middleware (Express, Connect, node:http): sets `req.gatehouse = {outcome, route, verification}` and
 * calls `next()` when the call may pass; otherwise answers 401/403 (or 503) with a problem+json body.
 */
function gatehouse(options) {
  const check = createCheck(options);
  const middleware = (req, res, next) => {
    check(req).then((result) => {
      req.gatehouse = { outcome: result.outcome, route: result.route, verification: result.verification };
      if (result.allow) next();
      else refuse(res, result);
    }, next);
  };
  middleware.check = check;
  middleware.flush = check.flush;
  middleware.close = check.close;
  return middleware;
}

/**
 * A Fastify `onRequest` hook: `fastify.addHook('onRequest', fastifyOnRequest({...}))`. Sets `request.gatehouse`
 * (declare it with `fastify.decorateRequest('gatehouse', null)`), and answers a refusal through `reply`.
 */
function fastifyOnRequest(options) {
  const check = createCheck(options);
  const hook = async (request, reply) => {
    const result = await check(request);
    request.gatehouse = { outcome: result.outcome, route: result.route, verification: result.verification };
    if (result.allow) return undefined;
    reply.code(result.status);
    for (const [name, value] of Object.entries(result.headers)) if (value !== null) reply.header(name, value);
    reply.send(JSON.stringify(result.problem));
    return reply;
  };
  hook.check = check;
  hook.flush = check.flush;
  hook.close = check.close;
  return hook;
}

module.exports = { createCheck, gatehouse, fastifyOnRequest, targetOf, headerOf, TOKEN_HEADER, PROOF_HEADER };
