'use strict';
// One source of truth for modes (docs/device-api.md "One source of truth for modes"): the environment's routes and modes
// fetched from GET /api/v4/edge/routes with the secret key when the library starts (without blocking the start) and
// again every 30 s, revalidated with the ETag (304); the last good set kept while Gatehouse cannot be reached; a
// secret key Gatehouse refuses (401, 403), or one of another environment, a misconfiguration logged at error level
// at most once a minute. Routes given in code (FixedRoutes) win, and say so once.

const { endpoint } = require('./consume.cjs');
const { makeTable } = require('./routes.cjs');
const { UNAVAILABLE, MISCONFIGURED } = require('./problems.cjs');

const ROUTES_PATH = '/api/v4/edge/routes';

/** Logs through `logger` at `level`, falling back to warn, then to nothing (logger null). */
function log(logger, level, message) {
  if (logger === null || logger === undefined) return;
  const write = typeof logger[level] === 'function' ? logger[level] : logger.warn;
  if (typeof write === 'function') write.call(logger, message);
}

/** A misconfiguration, logged at error level at most once a minute (a refused key would otherwise log per call). */
class Alarm {
  /** @param {{logger?: object | null, now?: () => number}} options */
  constructor({ logger, now = Date.now } = {}) {
    this._logger = logger;
    this._now = now;
    this._last = -Infinity;
    /** How many misconfigurations were raised (logged or not), for tests and operators. */
    this.raised = 0;
  }

  static get intervalMs() {
    return 60000;
  }

  /** Logs `message` (which never holds the secret key) unless another was logged in the last minute. */
  misconfigured(message) {
    this.raised++;
    const now = this._now();
    if (now - this._last < Alarm.intervalMs) return;
    this._last = now;
    log(this._logger, 'error', `gatehouse-receipts: misconfigured: ${message}: judged calls are answered 503 gatehouse-misconfigured until the operator fixes the configuration`);
  }
}

/** Routes given in code: always known. */
class FixedRoutes {
  constructor(table) {
    this.table = table;
  }

  /** `{table, failure}`: the routes, no failure. */
  current() {
    return { table: this.table, failure: null };
  }

  close() {}
}

/**
 * The environment's `{environment, mode, routes}` from Gatehouse. `current()` never waits: `{table}` once an answer
 * came; `{failure: 'unavailable'}` until then; `{failure: 'misconfigured'}` while Gatehouse refuses the key or names
 * another environment than `environment`.
 */
class RoutesSource {
  /**
   * @param {{gatehouseUrl: string | URL, secretKey: string, environment: string, intervalMs?: number,
   *   firstRetryMs?: number, timeoutMs?: number, fetch?: typeof fetch, logger?: object | null, alarm: Alarm}} options
   */
  constructor(options) {
    this.url = endpoint(options.gatehouseUrl, ROUTES_PATH);
    Object.defineProperty(this, '_secretKey', { value: options.secretKey, enumerable: false });
    this.environment = options.environment;
    /** Milliseconds between two fetches (Gatehouse answers `Cache-Control: max-age=30`). */
    this.intervalMs = options.intervalMs ?? 30000;
    /** Milliseconds before a failed fetch is tried again while no routes were ever had. */
    this.firstRetryMs = Math.min(options.firstRetryMs ?? 1000, this.intervalMs);
    this.timeoutMs = options.timeoutMs ?? 5000;
    this._fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this._logger = options.logger;
    this._alarm = options.alarm;
    this._table = null;
    this._etag = null;
    /** 'key' (refused) or 'environment' (another one's) while misconfigured, else null. */
    this.misconfiguration = null;
    this._timer = null;
    this._inflight = null;
    this._closed = false;
    this._warnedAt = -Infinity;
    /** What the fetches found, for tests and operators. */
    this.stats = { fetches: 0, notModified: 0, failures: 0 };
  }

  /** Fetches now in the background, then every `intervalMs` (the timer never keeps the process alive). */
  start() {
    this._schedule(0);
  }

  /** `{table, failure}`; see the class. */
  current() {
    if (this.misconfiguration !== null) return { table: null, failure: MISCONFIGURED };
    if (this._table === null) return { table: null, failure: UNAVAILABLE };
    return { table: this._table, failure: null };
  }

  /** Fetches now (one fetch at a time); resolves when it is done, never rejects. */
  refresh() {
    if (this._inflight === null) {
      this._inflight = this._fetchRoutes().catch(() => undefined).finally(() => {
        this._inflight = null;
      });
    }
    return this._inflight;
  }

  /** Stops fetching. */
  close() {
    this._closed = true;
    if (this._timer !== null) clearTimeout(this._timer);
    this._timer = null;
  }

  _schedule(delay) {
    if (this._closed) return;
    this._timer = setTimeout(() => {
      this._timer = null;
      this.refresh().then(() => {
        const pending = this._table === null && this.misconfiguration === null;
        this._schedule(pending ? this.firstRetryMs : this.intervalMs);
      });
    }, delay);
    this._timer.unref?.();
  }

  _keeping() {
    return this._table !== null ? 'keeping the last routes' : 'no routes yet: calls are answered as if Gatehouse could not be reached';
  }

  async _fetchRoutes() {
    this.stats.fetches++;
    const headers = { accept: 'application/json', authorization: 'Bearer ' + this._secretKey };
    if (this._etag !== null && this._table !== null) headers['if-none-match'] = this._etag;
    let response;
    let text;
    try {
      response = await this._fetch(this.url, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
      text = await response.text();
    } catch (error) {
      return this._unreachable(error.message);
    }
    if (response.status === 304 && this._table !== null) {
      this.stats.notModified++;
      if (this.misconfiguration === 'key') this.misconfiguration = null;
      return undefined;
    }
    if (response.status === 401 || response.status === 403) {
      this.misconfiguration = 'key';
      return this._alarm.misconfigured(`Gatehouse refused the secret key (GET ${ROUTES_PATH} answered ${response.status})`);
    }
    if (response.status !== 200) {
      if (response.status >= 500 || response.status === 429 || response.status === 408) return this._unreachable(`answered ${response.status}`);
      this.stats.failures++;
      return log(this._logger, 'error', `gatehouse-receipts: GET ${this.url} answered ${response.status} (a Gatehouse older than this library?): ${this._keeping()}`);
    }
    let answer;
    let table;
    try {
      answer = JSON.parse(text);
      if (typeof answer?.environment !== 'string') throw new TypeError('no environment');
      table = makeTable(answer.routes, answer.mode ?? 'off');
    } catch (error) {
      this.stats.failures++;
      return log(this._logger, 'error', `gatehouse-receipts: GET ${this.url} answered routes this library cannot read (${error.message}): ${this._keeping()}`);
    }
    if (answer.environment !== this.environment) {
      this.misconfiguration = 'environment';
      this._etag = null;
      return this._alarm.misconfigured(`the secret key belongs to environment ${answer.environment.slice(0, 64)}, not to the configured ${this.environment}`);
    }
    this._table = table;
    this._etag = response.headers.get('etag');
    this.misconfiguration = null;
    return undefined;
  }

  /** Gatehouse could not be asked: said at most once in 10 minutes (it is retried every interval). */
  _unreachable(message) {
    this.stats.failures++;
    const now = Date.now();
    if (now - this._warnedAt < 600000) return;
    this._warnedAt = now;
    log(this._logger, 'warn', `gatehouse-receipts: routes not fetched from ${this.url} (${message}): ${this._keeping()}`);
  }
}

module.exports = { RoutesSource, FixedRoutes, Alarm, ROUTES_PATH, log };
