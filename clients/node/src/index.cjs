'use strict';
// gatehouse-receipts: Gatehouse receipts checked in a Node backend (docs/device-api.md "The backend libraries").
// The implementation is CommonJS so that `import` and `require` share one instance (one key cache, one reporter per
// middleware); index.js is the ES module entry over it.

const { verifySessionToken, verifyRequestProof, REASONS } = require('./verify.cjs');
const { JWKSSource, GatehouseUnavailableError } = require('./jwks-source.cjs');
const { KeySet, parseJWKS, ReceiptKeyError } = require('./keys.cjs');
const { consume, GatehouseRequestError } = require('./consume.cjs');
const { createCheck, gatehouse, fastifyOnRequest } = require('./middleware.cjs');
const { LIMITS } = require('./limits.cjs');

module.exports = {
  verifySessionToken,
  verifyRequestProof,
  JWKSSource,
  consume,
  gatehouse,
  createCheck,
  fastifyOnRequest,
  parseJWKS,
  KeySet,
  REASONS,
  LIMITS,
  ReceiptKeyError,
  GatehouseUnavailableError,
  GatehouseRequestError,
};
