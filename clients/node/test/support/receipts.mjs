// Receipts and proofs made in the tests, as Gatehouse's ReceiptSigner and a phone's SDK make them: an ES256 issuer
// with its JWKS, P-256 phone keys, proofs `t=<ms>,s=<signature>` (raw r‖s or DER).
import crypto from 'node:crypto';

export const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
export const b64json = (value) => b64url(Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8'));

/** An issuer: a P-256 key, its kid and JWKS, and `sign(claims, {header})` making compact JWS receipts. */
export function issuer(kid = 'kid-test') {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const entry = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid, use: 'sig', alg: 'ES256' };
  const header = { alg: 'ES256', kid, typ: 'gatehouse-receipt+jwt' };
  return {
    kid,
    privateKey,
    jwk: entry,
    jwks: { keys: [entry] },
    /** Signs `payload` (an object, or JSON text taken as it is) under `headerText` (default: ours for this kid). */
    sign(payload, { header: headerValue = header, signature } = {}) {
      const input = b64json(headerValue) + '.' + b64json(payload);
      const sig = signature ?? crypto.sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
      return input + '.' + b64url(sig);
    },
  };
}

/** A phone's receipt key: its cnf JWK, and `proof(method, pathAndQuery, t, {der})`. */
export function phone() {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    privateKey,
    publicKey,
    jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y },
    spki: publicKey.export({ format: 'der', type: 'spki' }),
    proof(method, pathAndQuery, t, { der = false } = {}) {
      const message = Buffer.from(`${t}\n${method}\n${pathAndQuery}`, 'utf8');
      const signature = crypto.sign('sha256', message, { key: privateKey, dsaEncoding: der ? 'der' : 'ieee-p1363' });
      return `t=${t},s=${b64url(signature)}`;
    },
  };
}

/** Claims of a receipt issued at `iat` (unix seconds) for `env`; `extra` adds or replaces members. */
export function claims(env, iat, extra = {}) {
  return { iss: 'gatehouse', env, sub: 'req_test', iat, exp: iat + 600, plat: 'ios', action: 'allow', att: null, ...extra };
}
