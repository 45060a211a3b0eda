// How much verifying a bound receipt with its proof costs, against node:crypto's own ECDSA P-256 verify in the same
// run (the goal: at most 1.5× two verifies, the receipt's signature and the proof's). Three figures: a receipt seen
// for the first time by a phone key seen for the first time (the phone key is imported: the worst case), a new
// receipt by a phone key seen before (a phone's next receipt), and a receipt seen before (its signature remembered:
// only the proof is verified). Usage: node bench.mjs [receipts per round, default 2000].
import crypto from 'node:crypto';
import { verifySessionToken, parseJWKS } from './index.js';

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = 5;
const ENV = 'env_bench000000000000';
const NOW = 1_796_000_000_000;
const METHOD = 'POST';
const PATH = '/api/orders?page=2';

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const { privateKey: signer, publicKey: signerPublic } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signerJWK = signerPublic.export({ format: 'jwk' });
const keys = parseJWKS({ keys: [{ kty: 'EC', crv: 'P-256', x: signerJWK.x, y: signerJWK.y, kid: 'bench', use: 'sig', alg: 'ES256' }] });
const header = b64({ alg: 'ES256', kid: 'bench', typ: 'gatehouse-receipt+jwt' });

function phone() {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y } = publicKey.export({ format: 'jwk' });
  return { privateKey, jwk: { kty: 'EC', crv: 'P-256', x, y } };
}

let serial = 0;
/** A bound receipt as Gatehouse signs one, and its proof for METHOD PATH. */
function receipt(device) {
  const iat = NOW / 1000 - 30;
  const claims = { iss: 'gatehouse', env: ENV, sub: `req_${serial++}`, iat, exp: iat + 600, plat: 'android', action: 'allow',
    att: { provider: 'play-integrity', status: 'verified' }, cnf: { jwk: device.jwk } };
  const input = header + '.' + b64(claims);
  const token = input + '.' + crypto.sign('sha256', Buffer.from(input), { key: signer, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  const t = NOW - 1000;
  const proof = `t=${t},s=` + crypto.sign('sha256', Buffer.from(`${t}\n${METHOD}\n${PATH}`), { key: device.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return { token, proof };
}

const options = (proof) => ({ jwks: keys, environment: ENV, method: METHOD, pathAndQuery: PATH, proof, nowMs: NOW, policy: { bound: true, attestation: 'verified' } });

/** Microseconds per call of `run(i)` over `count` calls. */
function time(count, run) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) run(i);
  return Number(process.hrtime.bigint() - started) / 1000 / count;
}

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

function check(answer) {
  if (!answer.valid) throw new Error(`bench receipt not valid: ${answer.reasons}`);
}

// Warm up every path once.
for (let i = 0; i < 200; i++) {
  const { token, proof } = receipt(phone());
  check(verifySessionToken(token, options(proof)));
  check(verifySessionToken(token, options(proof)));
}

const figures = { ecdsa: [], importJWK: [], fresh: [], knownPhone: [], seen: [] };
for (let round = 0; round < ROUNDS; round++) {
  // node:crypto's own verify, of a message the size of a receipt's signing input, by an imported key.
  const sample = receipt(phone());
  const input = Buffer.from(sample.token.slice(0, sample.token.lastIndexOf('.')));
  const signature = Buffer.from(sample.token.slice(sample.token.lastIndexOf('.') + 1), 'base64url');
  figures.ecdsa.push(time(N, () => {
    if (!crypto.verify('sha256', input, { key: signerPublic, dsaEncoding: 'ieee-p1363' }, signature)) throw new Error('verify');
  }));

  const freshDevices = Array.from({ length: N }, () => phone());
  // node:crypto's own import of a phone's key from its JWK (the cheapest of node:crypto's imports of a P-256 point).
  figures.importJWK.push(time(N, (i) => crypto.createPublicKey({ key: freshDevices[i].jwk, format: 'jwk' })));
  const fresh = freshDevices.map((device) => receipt(device));
  figures.fresh.push(time(N, (i) => check(verifySessionToken(fresh[i].token, options(fresh[i].proof)))));

  const device = phone();
  const known = Array.from({ length: N }, () => receipt(device));
  check(verifySessionToken(receipt(device).token, options(known[0].proof)));
  figures.knownPhone.push(time(N, (i) => check(verifySessionToken(known[i].token, options(known[i].proof)))));

  figures.seen.push(time(N, (i) => check(verifySessionToken(known[i].token, options(known[i].proof)))));
}

const ecdsa = median(figures.ecdsa);
const importJWK = median(figures.importJWK);
const line = (label, us) => `${label.padEnd(58)} ${us.toFixed(1).padStart(7)} µs  ${(us / (2 * ecdsa)).toFixed(2)}× two verifies`;
console.log(`gatehouse-receipts bench (node ${process.version}, OpenSSL ${process.versions.openssl}, ${N} receipts × ${ROUNDS} rounds, medians)`);
console.log(`${'node:crypto ECDSA P-256 verify (one)'.padEnd(58)} ${ecdsa.toFixed(1).padStart(7)} µs`);
console.log(`${'node:crypto P-256 public key import from its JWK (one)'.padEnd(58)} ${importJWK.toFixed(1).padStart(7)} µs`);
console.log(line('bound receipt + proof, new receipt, new phone key', median(figures.fresh)));
console.log(line('bound receipt + proof, new receipt, phone key seen before', median(figures.knownPhone)));
console.log(line('bound receipt + proof, receipt seen before (cached signature)', median(figures.seen)));
// Issue 48's lines: the library's CPU per check against the crypto it must do in node:crypto (a library has no
// exchange of its own: bare 0).
const ratio = (row, us, cryptoUs) =>
  console.log(`bench ${row}: server ${us.toFixed(0)} us, crypto ${cryptoUs.toFixed(0)} us, bare 0 us, ratio ${(us / cryptoUs).toFixed(2)}`);
ratio('node-new-phone', median(figures.fresh), 2 * ecdsa + importJWK);
ratio('node-known-phone', median(figures.knownPhone), 2 * ecdsa);
ratio('node-seen-receipt', median(figures.seen), ecdsa);
