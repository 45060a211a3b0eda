'use strict';
// The receipt signing keys, fetched from Gatehouse (GET /api/v4/receipts/keys) and kept (docs/device-api.md "The backend
// libraries", 2): kept while the answer's Cache-Control allows, then revalidated with its ETag (If-None-Match → 304);
// fetched again on a kid it does not know at most once in 30 s, counted from the last fetch of any kind; the last good
// set kept while Gatehouse cannot be reached. Concurrent callers share one fetch.

const { parseJWKS, KeySet } = require('./keys.cjs');
const { LIMITS } = require('./limits.cjs');

const KEYS_PATH = '/api/v4/receipts/keys';

/** Gatehouse could not be asked (unreachable, too slow, an answer that is not a JWKS, a 5xx). */
class GatehouseUnavailableError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'GatehouseUnavailableError';
  }
}

/** The keys URL for `url`: a Gatehouse base URL (no path) gets /api/v4/receipts/keys; any other URL is used as is. */
function keysURL(url) {
  const parsed = new URL(String(url));
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = KEYS_PATH;
  return parsed.toString();
}

/** The freshness lifetime an answer's headers give, in milliseconds (`max-age` less `Age`; 0 for no-cache/no-store). */
function freshnessMs(headers) {
  const control = (headers.get('cache-control') || '').toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)([\s,=]|$)/.test(control)) return 0;
  const match = /(^|[\s,])max-age\s*=\s*"?(\d+)"?/.exec(control);
  if (match === null) return 0;
  const age = Number.parseInt(headers.get('age') || '0', 10);
  return Math.max(0, Number.parseInt(match[2], 10) - (Number.isFinite(age) ? age : 0)) * 1000;
}

class JWKSSource {
  /**
   * @param {string | URL} url the JWKS (`https://gatehouse.example/api/v4/receipts/keys`), or Gatehouse's base URL
   * @param {{timeoutMs?: number, fetch?: typeof fetch, now?: () => number}} [options] `timeoutMs` bounds each fetch
   *   (default 2000); `fetch` and `now` replace the global fetch and Date.now (tests).
   */
  constructor(url, options = {}) {
    this.url = keysURL(url);
    this.timeoutMs = options.timeoutMs ?? 2000;
    this._fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this._now = options.now ?? Date.now;
    /** @type {KeySet | null} the last good set */
    this._keys = null;
    this._etag = null;
    this._freshUntil = -Infinity;
    /** When the last fetch of any kind started (a 200, a 304 or a failure). */
    this._lastFetchAt = -Infinity;
    /** No fetch before this time (after a failure). */
    this._retryAt = -Infinity;
    this._inflight = null;
    this._lastFailed = false;
    /** What the fetches found, for tests and operators: {fetches, notModified, failures}. */
    this.stats = { fetches: 0, notModified: 0, failures: 0 };
  }

  /** Minimum time between fetches after a failure: the last good set is served meanwhile. */
  static get retryAfterFailureMs() {
    return 5000;
  }

  /** How soon a kid the set does not know may fetch again, counted from the last fetch of any kind. */
  static get unknownKidIntervalMs() {
    return 30000;
  }

  /**
   * The keys: the kept set while fresh, else revalidated or fetched. While Gatehouse cannot be reached the last good
   * set is answered.
   * @returns {Promise<KeySet>}
   * @throws {GatehouseUnavailableError} when no set was ever fetched and none can be now.
   */
  async get() {
    const now = this._now();
    if (this._keys !== null && now < this._freshUntil) return this._keys;
    if (this._keys !== null && this._lastFailed) {
      // Gatehouse was unreachable at the last try: answer the last good set at once and try again in the background,
      // so that calls do not wait on a Gatehouse that is down.
      if (this._inflight === null && now >= this._retryAt) this._refresh().catch(() => undefined);
      return this._keys;
    }
    if (this._inflight !== null) return this._inflight;
    if (now < this._retryAt) {
      if (this._keys !== null) return this._keys;
      throw new GatehouseUnavailableError(`the receipt keys could not be fetched from ${this.url} (retrying shortly)`);
    }
    return this._refresh();
  }

  /**
   * Asked when a receipt names a kid the set does not know: fetches again if the last fetch (of any kind) was at
   * least 30 s ago, else answers the kept set.
   * @returns {Promise<KeySet>}
   */
  async refreshForUnknownKid() {
    if (this._inflight !== null) return this._inflight;
    const now = this._now();
    if (now - this._lastFetchAt >= JWKSSource.unknownKidIntervalMs && now >= this._retryAt) return this._refresh();
    return this.get();
  }

  /** Whether a set was ever fetched. */
  get hasKeys() {
    return this._keys !== null;
  }

  _refresh() {
    const promise = this._fetchKeys().finally(() => {
      if (this._inflight === promise) this._inflight = null;
    });
    this._inflight = promise;
    return promise;
  }

  async _fetchKeys() {
    const started = this._now();
    this._lastFetchAt = started;
    this.stats.fetches++;
    const headers = { accept: 'application/jwk-set+json, application/json' };
    if (this._etag !== null && this._keys !== null) headers['if-none-match'] = this._etag;
    try {
      const response = await this._fetch(this.url, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
      if (response.status === 304 && this._keys !== null) {
        this.stats.notModified++;
        this._lastFailed = false;
        this._retryAt = -Infinity;
        await response.arrayBuffer().catch(() => undefined);
        this._freshUntil = started + freshnessMs(response.headers);
        return this._keys;
      }
      if (response.status !== 200) {
        await response.arrayBuffer().catch(() => undefined);
        throw new GatehouseUnavailableError(`GET ${this.url} answered ${response.status}`);
      }
      const body = Buffer.from(await response.arrayBuffer());
      if (body.length > LIMITS.maxKeySetBytes) throw new GatehouseUnavailableError(`GET ${this.url} answered over ${LIMITS.maxKeySetBytes} bytes`);
      let keys;
      try {
        keys = parseJWKS(body);
      } catch (error) {
        throw new GatehouseUnavailableError(`GET ${this.url} answered something that is not a JWKS: ${error.message}`);
      }
      // The same keys as before: keep the set (and what it remembers of verified receipts).
      if (this._keys === null || JSON.stringify(this._keys) !== JSON.stringify(keys)) this._keys = keys;
      this._etag = response.headers.get('etag');
      this._freshUntil = started + freshnessMs(response.headers);
      this._retryAt = -Infinity;
      this._lastFailed = false;
      return this._keys;
    } catch (error) {
      this.stats.failures++;
      this._lastFailed = true;
      this._retryAt = this._now() + (this._keys === null ? 1000 : JWKSSource.retryAfterFailureMs);
      if (this._keys !== null) return this._keys;
      if (error instanceof GatehouseUnavailableError) throw error;
      throw new GatehouseUnavailableError(`the receipt keys could not be fetched from ${this.url}: ${error.message}`, { cause: error });
    }
  }
}

module.exports = { JWKSSource, GatehouseUnavailableError, keysURL, freshnessMs, KEYS_PATH, KeySet };
