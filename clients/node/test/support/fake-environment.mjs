// One environment on a fake Gatehouse for the tests of guards and of the routes source: its receipt signer, a fresh
// receipt, a request as a framework hands it over, and `reset(edge)` to set what GET /api/v4/edge/routes answers.
import { after, before } from 'node:test';
import { fakeGatehouse } from './fake-gatehouse.mjs';
import { issuer, claims } from './receipts.mjs';

/** Starts a fake Gatehouse for environment `environment` (before the file's tests; closed after them). */
export function fakeEnvironment(environment, kid) {
  const key = issuer(kid);
  const env = {
    key,
    fake: null,
    /** A receipt of the environment, issued 5 s ago, with a unique `sub` (and `extra` claims). */
    receipt: (extra = {}) => key.sign(claims(environment, Math.floor(Date.now() / 1000) - 5, { sub: `req_${Math.random().toString(36).slice(2)}`, ...extra })),
    /** A request as Node's http hands it to a handler. */
    request: (method, url, headers = {}) => ({ method, url, headers }),
    /** What the routes endpoint answers from now on, and its fetches forgotten. */
    reset(edge) {
      env.fake.state.edge = { environment, ...edge };
      env.fake.state.edgeMode = 'ok';
      env.fake.state.edgeFetches.length = 0;
    },
  };
  before(async () => {
    env.fake = await fakeGatehouse({ jwks: key.jwks, environment });
  });
  after(() => env.fake.close());
  return env;
}
