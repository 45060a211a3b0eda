'use strict';
// Every bound the receipt and proof readers apply (ReceiptLimits.swift's defaults), in one place.

const LIMITS = Object.freeze({
  /** Longest token read, in bytes (a bound receipt is about 600). */
  maxTokenBytes: 8192,
  /** Longest proof header read, in bytes (a DER signature makes one about 110). */
  maxProofBytes: 512,
  /** Longest JWKS document read, in bytes. */
  maxKeySetBytes: 65536,
  /** Most keys in a JWKS. */
  maxKeys: 32,
  /** How old a proof may be, in milliseconds (2 minutes). */
  proofMaxAgeMs: 120000,
  /** How far ahead of this clock a proof's time may lie, in milliseconds. */
  proofMaxAheadMs: 10000,
  /** How far ahead of this clock a receipt's iat may lie, in seconds. */
  issuedAtLeewaySeconds: 60,
  /** A receipt's lifetime, exp − iat at most, in seconds. */
  receiptLifetimeSeconds: 600,
});

module.exports = { LIMITS };
