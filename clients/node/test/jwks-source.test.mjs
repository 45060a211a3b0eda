// JWKSSource against a real HTTP server: kept while Cache-Control allows, revalidated with the ETag, fetched again on
// an unknown kid at most once in 30 s (from the last fetch of any kind), the last good set kept while the server is
// down, one fetch shared by concurrent callers. Time is a fake clock; the network is real.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JWKSSource, GatehouseUnavailableError, verifySessionToken } from '../index.js';
import { fakeGatehouse } from './support/fake-gatehouse.mjs';
import { issuer, claims } from './support/receipts.mjs';

const ENV = 'env_jwks00000000000000';
const first = issuer('kid-first');
const second = issuer('kid-second');
const gatehouse = await fakeGatehouse({ jwks: first.jwks, environment: ENV });
after(() => gatehouse.close());

function clock(start = 1_000_000) {
  let now = start;
  const tick = () => now;
  tick.advance = (ms) => (now += ms);
  return tick;
}

function reset(jwks = first.jwks) {
  gatehouse.state.jwks = jwks;
  gatehouse.state.keyFetches.length = 0;
  gatehouse.state.keysMode = 'ok';
  gatehouse.state.maxAge = 300;
}

test('the base URL or the keys URL; kept while fresh, then revalidated (304 keeps the same set)', async () => {
  reset();
  const now = clock();
  const source = new JWKSSource(gatehouse.url, { now });
  assert.equal(source.url, `${gatehouse.url}/api/v4/receipts/keys`);
  assert.equal(new JWKSSource(`${gatehouse.url}/api/v4/receipts/keys`).url, source.url);
  const keys = await source.get();
  assert.deepEqual(keys.kids, ['kid-first']);
  for (let i = 0; i < 50; i++) assert.equal(await source.get(), keys);
  assert.equal(gatehouse.state.keyFetches.length, 1);
  now.advance(299_999);
  await source.get();
  assert.equal(gatehouse.state.keyFetches.length, 1);
  now.advance(1);
  assert.equal(await source.get(), keys, 'not modified: the same set');
  assert.equal(gatehouse.state.keyFetches.length, 2);
  assert.match(gatehouse.state.keyFetches[1].ifNoneMatch, /^"/);
  assert.deepEqual(source.stats, { fetches: 2, notModified: 1, failures: 0 });
  now.advance(300_000);
  gatehouse.state.jwks = { keys: [first.jwk, second.jwk] };
  const rotated = await source.get();
  assert.deepEqual(rotated.kids, ['kid-first', 'kid-second']);
});

test('an unknown kid fetches again at most once in 30 s, counted from the last fetch of any kind', async () => {
  reset();
  const now = clock();
  const source = new JWKSSource(gatehouse.url, { now });
  const token = second.sign(claims(ENV, Math.floor(now() / 1000)));
  const check = () => verifySessionToken(token, { jwks: source, environment: ENV, method: 'GET', pathAndQuery: '/', nowMs: now() });
  assert.deepEqual((await check()).reasons, ['signatureInvalid']);
  assert.equal(gatehouse.state.keyFetches.length, 1, 'the first fetch; the kid is not in it, and it is not 30 s old');
  gatehouse.state.jwks = { keys: [first.jwk, second.jwk] };
  now.advance(29_999);
  for (let i = 0; i < 20; i++) assert.deepEqual((await check()).reasons, ['signatureInvalid']);
  assert.equal(gatehouse.state.keyFetches.length, 1);
  now.advance(1);
  assert.deepEqual((await check()).reasons, [], 'fetched again: the new key verifies');
  assert.equal(gatehouse.state.keyFetches.length, 2);
  // A revalidation counts as a fetch: an unknown kid 10 s after it waits, 30 s after it fetches.
  now.advance(300_000);
  await source.get();
  assert.equal(gatehouse.state.keyFetches.length, 3);
  assert.equal(source.stats.notModified, 1);
  const stranger = issuer('kid-stranger').sign(claims(ENV, Math.floor(now() / 1000)));
  const strange = () => verifySessionToken(stranger, { jwks: source, environment: ENV, method: 'GET', pathAndQuery: '/', nowMs: now() });
  now.advance(10_000);
  assert.deepEqual((await strange()).reasons, ['signatureInvalid']);
  assert.equal(gatehouse.state.keyFetches.length, 3);
  now.advance(20_000);
  assert.deepEqual((await strange()).reasons, ['signatureInvalid']);
  assert.equal(gatehouse.state.keyFetches.length, 4);
});

test('Gatehouse down: the last good set is kept and answered at once; tried again at most every 5 s', async () => {
  reset();
  const now = clock();
  const source = new JWKSSource(gatehouse.url, { now });
  const keys = await source.get();
  gatehouse.state.keysMode = 'down';
  now.advance(300_000);
  assert.equal(await source.get(), keys);
  assert.equal(gatehouse.state.keyFetches.length, 2);
  for (let i = 0; i < 10; i++) assert.equal(await source.get(), keys);
  now.advance(4_999);
  assert.equal(await source.get(), keys);
  assert.equal(gatehouse.state.keyFetches.length, 2);
  now.advance(1);
  assert.equal(await source.get(), keys, 'answered at once, tried again in the background');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(gatehouse.state.keyFetches.length, 3);
  gatehouse.state.keysMode = 'garbage';
  now.advance(5_000);
  await source.get();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await source.get(), keys, 'an answer that is not a JWKS does not replace the set');
  gatehouse.state.keysMode = 'ok';
  gatehouse.state.jwks = second.jwks;
  now.advance(5_000);
  await source.get();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual((await source.get()).kids, ['kid-second'], 'back: the new set');
});

test('never fetched and down: GatehouseUnavailableError, quickly, until it is back', async () => {
  reset();
  gatehouse.state.keysMode = 'down';
  const now = clock();
  const source = new JWKSSource(gatehouse.url, { now });
  await assert.rejects(source.get(), GatehouseUnavailableError);
  await assert.rejects(source.get(), GatehouseUnavailableError);
  assert.equal(gatehouse.state.keyFetches.length, 1, 'not asked again within a second');
  await assert.rejects(verifySessionToken('a.b.c', { jwks: source, environment: ENV, method: 'GET', pathAndQuery: '/' }), GatehouseUnavailableError);
  gatehouse.state.keysMode = 'ok';
  now.advance(1_000);
  assert.deepEqual((await source.get()).kids, ['kid-first']);
  const refused = new JWKSSource('http://127.0.0.1:9/', { now });
  await assert.rejects(refused.get(), GatehouseUnavailableError);
});

test('a fetch that stalls ends at timeoutMs', async () => {
  reset();
  gatehouse.state.keysMode = 'stall';
  const source = new JWKSSource(gatehouse.url, { timeoutMs: 150 });
  const started = Date.now();
  await assert.rejects(source.get(), GatehouseUnavailableError);
  const took = Date.now() - started;
  assert.ok(took >= 140 && took < 2000, `${took} ms`);
});

test('concurrent callers share one fetch', async () => {
  reset();
  const source = new JWKSSource(gatehouse.url);
  const sets = await Promise.all(Array.from({ length: 20 }, () => source.get()));
  assert.ok(sets.every((set) => set === sets[0]));
  assert.equal(gatehouse.state.keyFetches.length, 1);
});

test('Cache-Control: no-cache, and Age, shorten the freshness', async () => {
  const { freshnessMs } = (await import('../src/jwks-source.cjs')).default;
  const headers = (map) => new Headers(map);
  assert.equal(freshnessMs(headers({ 'cache-control': 'public, max-age=300' })), 300_000);
  assert.equal(freshnessMs(headers({ 'cache-control': 'max-age=300', age: '100' })), 200_000);
  assert.equal(freshnessMs(headers({ 'cache-control': 'no-cache, max-age=300' })), 0);
  assert.equal(freshnessMs(headers({ 'cache-control': 'no-store' })), 0);
  assert.equal(freshnessMs(headers({})), 0);
  assert.equal(freshnessMs(headers({ 'cache-control': 's-maxage=50' })), 0);
});
