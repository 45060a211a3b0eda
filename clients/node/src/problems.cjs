'use strict';
// Refusals and failures (docs/device-api.md "Failing: unavailable, misconfigured, shutting down"): the one table of
// problem types, titles and details that the edge check (EnforcementRefusal.swift) and the Python library answer
// with too, held to the same text by Tests/Fixtures/enforcement/matching.json; and a judgement turned into the
// answer a framework sends: `{allow, status, outcome, route, mode, verification, problem, headers}`.

/** Seconds a client is asked to wait when the call cannot be judged (Retry-After). */
const RETRY_AFTER_SECONDS = 5;

/** Gatehouse could not be reached to judge the call. */
const UNAVAILABLE = 'unavailable';
/** Gatehouse refused the secret key, or the key belongs to another environment than the one configured. */
const MISCONFIGURED = 'misconfigured';

/** The problem of each refusal by outcome, then the two failures: [type name, title, status, detail]. */
const PROBLEMS = Object.freeze({
  missing: ['receipt-missing', 'Receipt required', 401, 'This call needs a Gatehouse receipt in the antibot-token header.'],
  invalid: ['receipt-invalid', 'Receipt not valid', 401, 'The receipt (or its request proof, or the path) does not hold: see reasons.'],
  reused: ['receipt-reused', 'Receipt already used', 401, 'This call spends its receipt, and the receipt was spent before: assess again for a new one.'],
  challenge: ['receipt-challenge', 'Attestation required', 403, 'Attack mode is on and this receipt was issued without a verified attestation: attest and assess again.'],
  unmet: ['receipt-unmet', "Receipt does not meet the route's requirements", 401, 'The route requires more of the receipt: see reasons.'],
  [UNAVAILABLE]: ['gatehouse-unavailable', 'Receipt cannot be checked now', 503, "Gatehouse cannot be reached to check this call's receipt: try again shortly."],
  [MISCONFIGURED]: ['gatehouse-misconfigured', 'Gatehouse is misconfigured', 503, "The API's Gatehouse secret key is refused: the operator must fix the configuration."],
});

/**
 * A judgement, before it is answered.
 * @typedef {{route: string | null, mode: string, outcome: string | null, reasons: string[], verification: object | null,
 *   failure: null | 'unavailable' | 'misconfigured'}} Judgement
 */

/** A judgement: `outcome` null when the call was not judged (mode off) or could not be (`failure`). */
function judgement(route, mode, outcome, reasons = [], verification = null, failure = null) {
  return { route, mode, outcome, reasons, verification, failure };
}

/**
 * Whether a judged call may go on: always under `off` and `monitor`; under `enforce` only `verified`, or a call
 * Gatehouse could not be reached for when `onUnavailable` is `pass` (a misconfiguration is refused whatever it says).
 */
function allows(j, onUnavailable) {
  if (j.mode !== 'enforce') return true;
  if (j.failure !== null) return j.failure === UNAVAILABLE && onUnavailable === 'pass';
  return j.outcome === 'verified';
}

/** The refusal's application/problem+json body: the table's type, title, status, detail; outcome, route, reasons. */
function problemOf(j) {
  const [name, title, status, detail] = PROBLEMS[j.failure ?? j.outcome ?? 'missing'] ?? PROBLEMS.missing;
  return {
    type: `/problems/${name}`, title, status, detail,
    outcome: j.failure === null ? j.outcome : null,
    route: j.route,
    reasons: j.failure === null ? j.reasons.slice() : [],
  };
}

/** Gatehouse-Outcome and Gatehouse-Route, each only when it has a value (never an empty header). */
function gatehouseHeaders(j) {
  const headers = {};
  if (j.outcome !== null && j.failure === null) headers['gatehouse-outcome'] = j.outcome;
  if (j.route !== null && j.route !== '') headers['gatehouse-route'] = j.route;
  return headers;
}

/** What check(req), judge() and the middlewares answer for judgement `j`. */
function resultOf(j, onUnavailable) {
  const headers = gatehouseHeaders(j);
  const base = { outcome: j.outcome, route: j.route, mode: j.mode, verification: j.verification };
  if (allows(j, onUnavailable)) return { allow: true, status: 200, ...base, problem: null, headers };
  const problem = problemOf(j);
  const refusal = { 'content-type': 'application/problem+json', 'cache-control': 'no-store', ...headers };
  if (j.failure === UNAVAILABLE) refusal['retry-after'] = String(RETRY_AFTER_SECONDS);
  return { allow: false, status: problem.status, ...base, problem, headers: refusal };
}

module.exports = { PROBLEMS, UNAVAILABLE, MISCONFIGURED, RETRY_AFTER_SECONDS, judgement, allows, problemOf, gatehouseHeaders, resultOf };
