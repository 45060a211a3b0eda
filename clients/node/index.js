// The ES module entry: import { verifySessionToken, gatehouse } from 'gatehouse-receipts'.
import library from './src/index.cjs';

export const {
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
} = library;
export default library;
