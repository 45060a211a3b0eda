'use strict';
// The server's check of a receipt, POST /api/v4/receipts/verify with one of the environment's secret keys
// (docs/device-api.md "Receipts spent once"): with "consume": true it spends a receipt that is otherwise valid, once across
// every server of the deployment, and every later check of it is not valid, reason `consumed`.

const { readPolicy, verification } = require('./verify.cjs');
const { GatehouseUnavailableError } = require('./jwks-source.cjs');

const VERIFY_PATH = '/api/v4/receipts/verify';

/** Gatehouse refused the call itself (a wrong secret key, a field it cannot read): retrying will not help. */
class GatehouseRequestError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'GatehouseRequestError';
    this.status = status;
  }
}

/** `base` + `path`, whatever `base` ends with. */
function endpoint(base, path) {
  const url = new URL(String(base));
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  url.search = '';
  return url.toString();
}

/** ReceiptPolicyFields.json: only what the policy requires. */
function requireMember(policy) {
  const members = {};
  if (policy.bound) members.bound = true;
  if (policy.attestation === 'verified') members.attestation = 'verified';
  if (policy.debug) members.debug = true;
  return members;
}

/**
 * POST /api/v4/receipts/verify: the server's answer for `token` as a Verification, plus `consumed`, `environment`,
 * `attestation` and `expiresAt` (RFC 3339) as the server says them. `claims` is null: the server does not send them.
 */
async function serverVerify(token, options, consume) {
  const { gatehouseUrl, secretKey, method, pathAndQuery, proof = null, policy = null, timeoutMs = 2000 } = options ?? {};
  const fetcher = options?.fetch ?? ((...args) => globalThis.fetch(...args));
  if (typeof secretKey !== 'string' || !secretKey.startsWith('sk_')) throw new TypeError('secretKey must be one of the environment\'s secret keys (sk_…)');
  if (gatehouseUrl === undefined || gatehouseUrl === null) throw new TypeError('gatehouseUrl must be Gatehouse\'s base URL');
  const rules = readPolicy(policy);
  if (typeof token !== 'string') return { ...verification(['malformed'], null), consumed: false, environment: null, attestation: null, expiresAt: null };
  const url = endpoint(gatehouseUrl, VERIFY_PATH);
  const body = JSON.stringify({
    token,
    method: typeof method === 'string' ? method : String(method ?? ''),
    pathAndQuery: typeof pathAndQuery === 'string' ? pathAndQuery : String(pathAndQuery ?? ''),
    proof: typeof proof === 'string' ? proof : null,
    require: requireMember(rules),
    consume,
  });
  let response;
  let text;
  try {
    response = await fetcher(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer ' + secretKey },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw new GatehouseUnavailableError(`POST ${url} failed: ${error.message}`, { cause: error });
  }
  if (response.status === 200) {
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new GatehouseUnavailableError(`POST ${url} answered something that is not JSON`);
    }
    if (typeof answer !== 'object' || answer === null || typeof answer.valid !== 'boolean' || !Array.isArray(answer.reasons)) {
      throw new GatehouseUnavailableError(`POST ${url} answered something that is not a verification`);
    }
    return {
      valid: answer.valid,
      reasons: answer.reasons.filter((reason) => typeof reason === 'string'),
      claims: null,
      action: answer.action ?? null,
      bound: answer.bound === true,
      platform: answer.platform ?? null,
      consumed: answer.consumed === true,
      environment: answer.environment ?? null,
      attestation: answer.attestation ?? null,
      expiresAt: answer.expiresAt ?? null,
    };
  }
  if (response.status >= 500 || response.status === 429 || response.status === 408) {
    throw new GatehouseUnavailableError(`POST ${url} answered ${response.status}`);
  }
  let detail = '';
  try {
    const problem = JSON.parse(text);
    detail = typeof problem.detail === 'string' ? `: ${problem.detail}` : '';
    if (Array.isArray(problem.errors)) detail += ' ' + problem.errors.map((e) => `${e.pointer} ${e.detail}`).join('; ');
  } catch {
    // not a problem document
  }
  const what = response.status === 401 || response.status === 403 ? ' (the secret key was refused)' : '';
  throw new GatehouseRequestError(`POST ${url} answered ${response.status}${what}${detail}`, response.status);
}

/**
 * Spends a receipt on Gatehouse, for an operation that must happen once (a payment, a password change): the first
 * call for a receipt that is otherwise valid answers `valid: true, consumed: true`; every later check of it is
 * `valid: false` with reason `consumed`. A receipt that is not otherwise valid is not spent.
 * @throws {GatehouseUnavailableError} Gatehouse unreachable, too slow or failing (the receipt may or may not be spent:
 *   refuse the operation).
 * @throws {GatehouseRequestError} the secret key was refused, or a field could not be read.
 */
function consume(token, options) {
  return serverVerify(token, options, true);
}

module.exports = { consume, serverVerify, GatehouseRequestError, endpoint, requireMember, VERIFY_PATH };
