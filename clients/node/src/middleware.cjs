'use strict';
// What frameworks use (docs/device-api.md "The backend libraries", 3, and "Guards on the handler"): gatehouse(options)
// → `gh`, the connect-style route-table middleware (`app.use(gh)`) that also offers guards on handlers
// (`gh.require(name)` for Express, `await gh.judge(name, req)` for any framework) and `gh.close()`; createCheck()
// → `check(req)`, the framework-free route table; fastifyOnRequest() → a Fastify onRequest hook.

const { Engine, targetOf, headerOf, TOKEN_HEADER, PROOF_HEADER } = require('./engine.cjs');
const { isRouteName, readMode } = require('./routes.cjs');
const { judgement } = require('./problems.cjs');

/** The judgement an engine already made of a request (the route table, or a guard), so no call is judged twice. */
const JUDGED = Symbol('gatehouse judgement');

/** What handlers find in `req.gatehouse`. */
function stateOf(result) {
  return { outcome: result.outcome, route: result.route, verification: result.verification };
}

/** Never rejects: a failure to judge (a bug, a key that cannot be read) is a 503 under enforce. */
async function safely(judge, fallback) {
  try {
    return await judge();
  } catch {
    return fallback;
  }
}

function remember(req, engine, j) {
  if (req !== null && typeof req === 'object' && j.outcome !== null && j.failure === null) {
    try {
      Object.defineProperty(req, JUDGED, { value: { engine, judgement: j }, configurable: true });
    } catch {
      // a frozen request: judged again if asked again
    }
  }
  return j;
}

/** The route table's judgement of `req`. */
async function judgeTable(engine, req) {
  const j = await safely(() => engine.table(req), judgement(null, 'enforce', null, [], null, 'unavailable'));
  return remember(req, engine, j);
}

/**
 * A guard's judgement of `req` under route `name`: the judgement this engine already made under that route (the
 * route table in front, another guard) is taken as it is, answered under the guard's mode, so a receipt is never
 * spent or counted twice for one call.
 */
async function judgeNamed(engine, name, mode, req) {
  const earlier = req?.[JUDGED];
  if (earlier?.engine === engine && earlier.judgement.route === name && (mode ?? earlier.judgement.mode) !== 'off') {
    return { ...earlier.judgement, mode: mode ?? earlier.judgement.mode };
  }
  const j = await safely(() => engine.named(name, mode ?? null, req), judgement(name, mode ?? 'enforce', null, [], null, 'unavailable'));
  return remember(req, engine, j);
}

function readGuardOptions(name, options) {
  if (!isRouteName(name)) throw new TypeError('a guard names a route: 1 to 40 lower-case letters, digits and hyphens, starting with a letter or digit (the name in the environment\'s routes)');
  if (options !== undefined && (options === null || typeof options !== 'object')) throw new TypeError('guard options must be an object {mode}');
  return options?.mode == null ? null : readMode(options.mode);
}

/** Writes a refusal on a Node response (Express's too). */
function refuse(res, result) {
  if (res.headersSent) return;
  res.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers)) if (value !== null && value !== '') res.setHeader(name, value);
  res.end(JSON.stringify(result.problem));
}

/**
 * The framework-free route table: `check(req)` judges a request (Node's IncomingMessage, Express, Fastify, or a
 * fetch Request) and answers `{allow, status, outcome, route, mode, verification, problem, headers}`: when `allow` is
 * false, answer `status` with `headers` and the problem as JSON. Never rejects. `check.judge(name, req)` is the
 * guard's judgement under route `name`; `check.close()` stops the timers and sends what is counted; `check.flush()`
 * sends it now.
 */
function createCheck(options) {
  const engine = new Engine(options);
  const check = async (req) => engine.result(await judgeTable(engine, req));
  check.judge = async (name, req, judgeOptions) => engine.result(await judgeNamed(engine, name, readGuardOptions(name, judgeOptions), req));
  check.flush = () => engine.flush();
  check.close = () => engine.close();
  check.keys = engine.keys;
  check.reporter = engine.reporter;
  check.routes = engine.routes;
  check.engine = engine;
  return check;
}

/**
 * `gh = gatehouse({gatehouseUrl, environment, secretKey, routes, mode, onUnavailable, report})`:
 * - `gh` itself is connect-style route-table middleware (Express, Connect, node:http): `app.use(gh)`;
 * - `gh.require(name, {mode})` is Express route middleware guarding one handler: `app.post('/api/payments',
 *   gh.require('payments'), handler)`;
 * - `await gh.judge(name, req, {mode})` → `{allow, status, outcome, route, verification, problem, headers}` for any
 *   framework;
 * - `await gh.close()` stops fetching routes and sends what is counted (call it on SIGTERM).
 * Each sets `req.gatehouse = {outcome, route, verification}` and calls `next()` when the call may pass; otherwise it
 * answers 401/403 (or 503) with a problem+json body.
 */
function gatehouse(options) {
  const check = createCheck(options);
  const engine = check.engine;
  const middleware = (req, res, next) => {
    check(req).then((result) => {
      req.gatehouse = stateOf(result);
      if (result.allow) next();
      else refuse(res, result);
    }, next);
  };
  middleware.require = (name, guardOptions) => {
    const mode = readGuardOptions(name, guardOptions);
    const guard = (req, res, next) => {
      judgeNamed(engine, name, mode, req).then((j) => {
        const result = engine.result(j);
        req.gatehouse = stateOf(result);
        if (result.allow) next();
        else refuse(res, result);
      }, next);
    };
    return guard;
  };
  middleware.judge = check.judge;
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
    request.gatehouse = stateOf(result);
    if (result.allow) return undefined;
    reply.code(result.status);
    for (const [name, value] of Object.entries(result.headers)) if (value !== null && value !== '') reply.header(name, value);
    reply.send(JSON.stringify(result.problem));
    return reply;
  };
  hook.check = check;
  hook.judge = check.judge;
  hook.flush = check.flush;
  hook.close = check.close;
  return hook;
}

module.exports = { createCheck, gatehouse, fastifyOnRequest, targetOf, headerOf, TOKEN_HEADER, PROOF_HEADER };
