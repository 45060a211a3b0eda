'use strict';
// A middleware's outcome counts, reported to POST /api/ingest/v1/enforcement once a minute from the background
// (docs/device-api.md "Outcomes reported by a backend"): `{"counts": [{"route", "outcome", "hour", "count"}]}`, at most
// 1000 entries a report, each count at most 1 000 000, hours on the hour and at most 8 days old. Each report carries
// its own Idempotency-Key and is retried with it until Gatehouse takes it, so a report is counted once however many
// times it is sent; counts made meanwhile wait for the next report. The secret key is never logged.

const crypto = require('node:crypto');
const { endpoint } = require('./consume.cjs');

const INGEST_PATH = '/api/ingest/v1/enforcement';
const HOUR_MS = 3600000;
const RETENTION_MS = 8 * 24 * HOUR_MS;
const MAX_ENTRIES = 1000;
const MAX_COUNT = 1000000;
const LOG_EVERY_MS = 10 * 60000;

/** The start of the UTC hour of `ms`, RFC 3339. */
function hourOf(ms) {
  return new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString().replace('.000Z', 'Z');
}

class Reporter {
  /**
   * @param {{gatehouseUrl: string, secretKey: string, intervalMs?: number, timeoutMs?: number, fetch?: typeof fetch,
   *   now?: () => number, logger?: {warn: (message: string) => void}, onKeyRefused?: (message: string) => void}} options
   *   `onKeyRefused` hears of a 401/403 (a misconfiguration, logged at error level by the caller's Alarm).
   */
  constructor(options) {
    this.url = endpoint(options.gatehouseUrl, INGEST_PATH);
    // Kept out of enumerable fields, so that printing the reporter never shows it.
    Object.defineProperty(this, '_secretKey', { value: options.secretKey, enumerable: false });
    this.intervalMs = options.intervalMs ?? 60000;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this._fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this._now = options.now ?? Date.now;
    this._logger = options.logger === undefined ? console : options.logger;
    this._onKeyRefused = options.onKeyRefused ?? null;
    /** Counts not yet in a report, by route, outcome and hour. */
    this._counts = new Map();
    /** Reports sent at least once and not yet taken, each with its Idempotency-Key: resent as they are. */
    this._pending = [];
    this._flushing = null;
    this._timer = null;
    this._logged = new Map();
    /** What the reports did, for tests and operators. */
    this.stats = { sent: 0, accepted: 0, retried: 0, dropped: 0 };
  }

  /** Starts the minute timer (unref'd: it never keeps the process alive). */
  start() {
    if (this._timer !== null) return;
    this._timer = setInterval(() => {
      this.flush().catch(() => undefined);
    }, this.intervalMs);
    this._timer.unref();
  }

  /** Counts one call of `route` with `outcome`, in the current hour. */
  count(route, outcome) {
    const key = route + '\n' + outcome + '\n' + hourOf(this._now());
    this._counts.set(key, (this._counts.get(key) ?? 0) + 1);
  }

  /** Sends what is counted now (and what waits from before); resolves when done, never rejects. */
  flush() {
    if (this._flushing === null) {
      this._flushing = this._flush().finally(() => {
        this._flushing = null;
      });
    }
    return this._flushing;
  }

  /** Stops the timer and sends what is counted. */
  async close() {
    if (this._timer !== null) clearInterval(this._timer);
    this._timer = null;
    await this.flush();
  }

  async _flush() {
    if (!(await this._sendPending())) return;
    if (this._counts.size === 0) return;
    const entries = [];
    for (const [key, count] of this._counts) {
      const [route, outcome, hour] = key.split('\n');
      // Over a million in an hour: a million now, the rest in the next report.
      const sent = Math.min(count, MAX_COUNT);
      entries.push({ route, outcome, hour, count: sent });
      if (sent === count) this._counts.delete(key);
      else this._counts.set(key, count - sent);
    }
    for (let i = 0; i < entries.length; i += MAX_ENTRIES) {
      this._pending.push({ key: crypto.randomUUID(), entries: entries.slice(i, i + MAX_ENTRIES), refusals: 0 });
    }
    await this._sendPending();
  }

  /** Sends the waiting reports in order; false when one must wait for the next minute. */
  async _sendPending() {
    while (this._pending.length > 0) {
      const report = this._pending[0];
      const oldest = Math.floor(this._now() / HOUR_MS) * HOUR_MS - RETENTION_MS + HOUR_MS;
      report.entries = report.entries.filter((entry) => Date.parse(entry.hour) >= oldest);
      if (report.entries.length === 0) {
        this._pending.shift();
        continue;
      }
      const result = await this._send(report);
      if (result === 'accepted') {
        this._pending.shift();
        this.stats.accepted++;
      } else if (result === 'retry') {
        this.stats.retried++;
        return false;
      } else {
        // Refused as it is: a field Gatehouse cannot take (an hour ahead of its clock, at the turn of an hour) gets
        // one more try a minute later; then the report is dropped rather than resent forever.
        report.refusals++;
        if (result === 'key' || report.refusals >= 2) {
          this._pending.shift();
          this.stats.dropped++;
        } else {
          return false;
        }
      }
    }
    return true;
  }

  async _send(report) {
    this.stats.sent++;
    let response;
    let text = '';
    try {
      response = await this._fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer ' + this._secretKey,
          'idempotency-key': report.key,
        },
        body: JSON.stringify({ counts: report.entries }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      this._warn('unreachable', `gatehouse-receipts: reporting outcomes to ${this.url} failed (${error.message}); retrying with the same Idempotency-Key`);
      return 'retry';
    }
    if (response.status >= 200 && response.status < 300) return 'accepted';
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      this._warn('unavailable', `gatehouse-receipts: ${this.url} answered ${response.status} to a report; retrying with the same Idempotency-Key`);
      return 'retry';
    }
    if (response.status === 401 || response.status === 403) {
      const message = `gatehouse-receipts: ${this.url} refused the secret key (${response.status}): outcomes are not reported`;
      if (this._onKeyRefused !== null) this._onKeyRefused(`Gatehouse refused the secret key (POST ${INGEST_PATH} answered ${response.status}): outcomes are not reported`);
      else this._warn('key', message);
      return 'key';
    }
    this._warn('refused', `gatehouse-receipts: ${this.url} refused a report (${response.status}): ${text.slice(0, 300)}`);
    return 'refused';
  }

  /** Logs `message` at most once in 10 minutes per kind. */
  _warn(kind, message) {
    if (this._logger === null || typeof this._logger?.warn !== 'function') return;
    const now = this._now();
    const last = this._logged.get(kind);
    if (last !== undefined && now - last < LOG_EVERY_MS) return;
    this._logged.set(kind, now);
    this._logger.warn(message);
  }
}

module.exports = { Reporter, hourOf, INGEST_PATH };
