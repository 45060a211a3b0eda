'use strict';
// The backend's own enforcement (docs/device-api.md "The backend libraries", 3, and "Enforcement that cannot be walked
// around"): one Engine per gatehouse()/createCheck(), judging a call either by the route table (as the edge check
// does, Sources/Gatehouse/Enforcement/EdgeCheck.swift) or under a route named by a guard on the handler, with the
// same outcomes, modes and refusals; a `consume` route spends its receipt through POST /api/v4/receipts/verify (the
// only network call in the request path); outcome counts reported once a minute with a secret key.

const { verifySessionToken, readPolicy, isSource } = require('./verify.cjs');
const { JWKSSource, GatehouseUnavailableError } = require('./jwks-source.cjs');
const { keySetOf } = require('./keys.cjs');
const { serverVerify, GatehouseRequestError } = require('./consume.cjs');
const { Reporter } = require('./report.cjs');
const { originForm } = require('./path.cjs');
const routes = require('./routes.cjs');
const { RoutesSource, FixedRoutes, Alarm, log } = require('./routes-source.cjs');
const { judgement, resultOf, UNAVAILABLE, MISCONFIGURED } = require('./problems.cjs');

const TOKEN_HEADER = 'antibot-token';
const PROOF_HEADER = 'antibot-pop';
const INVALID_REASONS = new Set(['malformed', 'signatureInvalid', 'expired', 'wrongEnvironment', 'session:proof']);
const ON_UNAVAILABLE = ['refuse', 'pass'];

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

/**
 * The request target as the phone sent it (and signed it): path and query. Express's `originalUrl` (a mounted
 * router's `url` has lost its prefix); an absolute-form target (or a fetch Request's url) is taken as its path and
 * query (path.cjs `originForm`).
 */
function targetOf(req) {
  let target = typeof req?.originalUrl === 'string' ? req.originalUrl : req?.url;
  if (typeof target !== 'string') return '';
  if (target.charCodeAt(0) !== 0x2f) target = originForm(target);
  if (NON_ASCII.test(target) && LATIN1.test(target)) {
    // Node's HTTP parser hands bytes outside ASCII over as Latin-1 text: read them back as the UTF-8 that was sent.
    const bytes = Buffer.from(target, 'latin1');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) target = text;
  }
  return target;
}

class Engine {
  /** Reads the options of gatehouse()/createCheck() and makes what they need once. @throws {TypeError} */
  constructor(options) {
    if (options === null || typeof options !== 'object') throw new TypeError('options must be an object {gatehouseUrl, environment, secretKey, routes, mode, onUnavailable, report}');
    const { gatehouseUrl, environment, secretKey = null, report = true, onUnavailable = 'refuse' } = options;
    if (typeof environment !== 'string' || environment.length === 0) throw new TypeError('environment must be the environment id (env_…)');
    if (secretKey !== null && (typeof secretKey !== 'string' || !secretKey.startsWith('sk_'))) {
      throw new TypeError("secretKey must be one of the environment's secret keys (sk_…)");
    }
    if (!ON_UNAVAILABLE.includes(onUnavailable)) throw new TypeError('onUnavailable must be "refuse" or "pass"');
    const needsUrl = options.routes === undefined || options.jwks == null || secretKey !== null;
    if (needsUrl && gatehouseUrl == null) throw new TypeError("gatehouseUrl must be Gatehouse's base URL");
    this.environment = environment;
    this.onUnavailable = onUnavailable;
    this.logger = options.logger === undefined ? console : options.logger;
    this.alarm = new Alarm({ logger: this.logger, now: options.now });
    Object.defineProperty(this, 'secretKey', { value: secretKey, enumerable: false });
    this.gatehouseUrl = gatehouseUrl;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.fetch = options.fetch;
    this._warned = new Set();
    if (options.routes === undefined) {
      if (secretKey === null) {
        throw new TypeError("without routes in code, the environment's routes are fetched from Gatehouse (GET /api/v4/edge/routes), which needs secretKey; give routes: [...] for a route table in code");
      }
      if (options.mode !== undefined) log(this.logger, 'warn', 'gatehouse-receipts: mode is for routes given in code: the environment\'s own mode comes with its routes from Gatehouse');
      this.routes = new RoutesSource({ gatehouseUrl, secretKey, environment, intervalMs: options.routesIntervalMs, timeoutMs: options.timeoutMs,
        fetch: options.fetch, logger: this.logger, alarm: this.alarm });
      this.routes.start();
    } else {
      const table = routes.makeTable(options.routes, options.mode);
      if (secretKey === null && table.routes.some((route) => route.consume && routes.modeOf(table, route) !== 'off')) {
        throw new TypeError('a consume route spends its receipt on Gatehouse: give secretKey');
      }
      this.routes = new FixedRoutes(table);
      log(this.logger, 'info', `gatehouse-receipts: routes given in code (${table.routes.length}): the environment's routes and modes (the Enforcement tab) are not fetched`);
    }
    let keys = options.jwks ?? null;
    if (keys === null) keys = new JWKSSource(gatehouseUrl, { timeoutMs: options.timeoutMs, fetch: options.fetch, now: options.now });
    else if (!isSource(keys)) keys = keySetOf(keys);
    this.keys = keys;
    this.reporter = secretKey !== null && report !== false && gatehouseUrl != null
      ? new Reporter({ gatehouseUrl, secretKey, intervalMs: options.reportIntervalMs, fetch: options.fetch, now: options.now, logger: this.logger,
        onKeyRefused: (message) => this.alarm.misconfigured(message) })
      : null;
    this.reporter?.start();
    // Fetch the keys now, so that the first call does not wait for them (a failure is retried on the first call).
    if (isSource(keys)) Promise.resolve().then(() => keys.get()).catch(() => undefined);
  }

  /** Judges `req` by the route table. Never rejects: a failure to judge is a failure judgement. */
  async table(req) {
    const method = typeof req?.method === 'string' ? req.method : '';
    const target = targetOf(req);
    const { table, failure } = this.routes.current();
    // Routes not known yet (or not to be trusted): the call could be any route's, so as if under enforce.
    if (table === null) return judgement(null, 'enforce', null, [], null, failure);
    const found = routes.classify(table, method, target);
    if (found.reason !== null) {
      // A path two parsers could read differently: invalid, under the strictest mode there is.
      return this._counted(judgement(found.name, found.mode, found.mode === 'off' ? null : 'invalid', [found.reason]));
    }
    return this._receipt(found.name, found.mode, found.route, method, target, req);
  }

  /** Judges `req` under the route called `name` (a guard: the framework chose the handler), `mode` overriding. */
  async named(name, mode, req) {
    const method = typeof req?.method === 'string' ? req.method : '';
    const target = targetOf(req);
    const { table, failure } = this.routes.current();
    if (table === null) {
      if (mode === 'off') return judgement(name, 'off', null);
      return judgement(name, mode ?? 'enforce', null, [], null, failure);
    }
    const route = table.byName.get(name) ?? null;
    if (route === null && !this._warned.has(name)) {
      this._warned.add(name);
      log(this.logger, 'warn', `gatehouse-receipts: a guard names route ${JSON.stringify(name)}, which the environment does not hold: its calls are judged under the environment's mode (${table.mode}) with no requirement beyond a valid receipt, and counted under ${JSON.stringify(name)}`);
    }
    return this._receipt(name, mode ?? routes.modeOf(table, route), route, method, target, req);
  }

  /** The judgement of the receipt of a call judged under route `name` (`route` its settings, null for none). */
  async _receipt(name, mode, route, method, target, req) {
    if (mode === 'off') return judgement(name, mode, null);
    const token = headerOf(req, TOKEN_HEADER);
    if (token === undefined || token === '') return this._counted(judgement(name, mode, 'missing'));
    const proof = headerOf(req, PROOF_HEADER) ?? null;
    const policy = route?.require ?? null;
    let verification;
    try {
      verification = await verifySessionToken(token, { jwks: this.keys, environment: this.environment, method, pathAndQuery: target, proof, policy });
    } catch (error) {
      if (error instanceof GatehouseUnavailableError) return judgement(name, mode, null, [], null, UNAVAILABLE);
      throw error;
    }
    let reasons = verification.reasons;
    const isChallenge = verification.action === 'challenge';
    if (route?.consume && !reasons.some((reason) => INVALID_REASONS.has(reason))) {
      // Only Gatehouse knows what was spent: it spends a receipt that holds (not a challenge one) and says whether
      // one was spent before.
      let spent = null;
      try {
        spent = await serverVerify(token, {
          gatehouseUrl: this.gatehouseUrl, secretKey: this.secretKey, method, pathAndQuery: target, proof, policy: readPolicy(policy),
          timeoutMs: this.timeoutMs, fetch: this.fetch,
        }, !isChallenge);
      } catch (error) {
        const failure = this._spendFailed(name, error);
        // Only a receipt valid offline needed spending; one already refused offline (unmet, challenge) stays
        // refused, though Gatehouse could not say whether it was spent before.
        if (reasons.length === 0 && !isChallenge) return judgement(name, mode, null, [], verification, failure);
      }
      if (spent !== null) {
        reasons = spent.reasons;
        verification = { ...verification, valid: spent.valid, reasons, consumed: spent.consumed };
      }
    }
    let outcome;
    if (reasons.some((reason) => INVALID_REASONS.has(reason))) outcome = 'invalid';
    else if (reasons.includes('consumed')) outcome = 'reused';
    else if (isChallenge) outcome = 'challenge';
    else if (reasons.length > 0) outcome = 'unmet';
    else outcome = 'verified';
    return this._counted(judgement(name, mode, outcome, reasons.slice(), verification));
  }

  _spendFailed(name, error) {
    if (error instanceof GatehouseRequestError && (error.status === 401 || error.status === 403)) {
      this.alarm.misconfigured(`Gatehouse refused the secret key (POST /api/v4/receipts/verify answered ${error.status})`);
      return MISCONFIGURED;
    }
    if (error instanceof GatehouseRequestError) log(this.logger, 'error', `gatehouse-receipts: Gatehouse refused the consuming check of route ${name}: ${error.message}`);
    return UNAVAILABLE;
  }

  _counted(j) {
    if (j.outcome !== null && j.failure === null && j.route !== null) this.reporter?.count(j.route, j.outcome);
    return j;
  }

  /** The answer to judgement `j`. */
  result(j) {
    return resultOf(j, this.onUnavailable);
  }

  /** Sends the counts now. */
  flush() {
    return this.reporter === null ? Promise.resolve() : this.reporter.flush();
  }

  /** Stops fetching routes and the reporting timer, and sends what is counted. */
  async close() {
    this.routes.close();
    if (this.reporter !== null) await this.reporter.close();
  }
}

module.exports = { Engine, targetOf, headerOf, TOKEN_HEADER, PROOF_HEADER };
