// Compiled (never run) by test/types.test.mjs with tsc when it is installed: the declarations as an ES module sees them.
import { verifySessionToken, verifyRequestProof, JWKSSource, consume, gatehouse, createCheck, fastifyOnRequest, parseJWKS,
  type Verification, type CheckResult, type Route, type Gatehouse, type Problem } from 'gatehouse-receipts';
import library from 'gatehouse-receipts';

const jwks = { keys: [{ kty: 'EC' as const, crv: 'P-256' as const, x: 'x', y: 'y', kid: 'k' }] };
const now: Verification = verifySessionToken('token', { jwks, environment: 'env_1', method: 'GET', pathAndQuery: '/', proof: null });
const later: Promise<Verification> = verifySessionToken('token', { jwks: new JWKSSource('https://g.example'), environment: 'env_1', method: 'GET', pathAndQuery: '/' });
const ok: boolean = verifyRequestProof('t=1,s=x', { jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }, method: 'GET', pathAndQuery: '/' });
const routes: Route[] = [{ name: 'pay', match: 'POST /api/pay', mode: 'enforce', require: { bound: true, attestation: 'verified' }, consume: true }];
const check = createCheck({ gatehouseUrl: 'https://g.example', environment: 'env_1', routes, secretKey: 'sk_test_x' });
async function handle(req: { method: string; url: string; headers: Record<string, string> }): Promise<number> {
  const result: CheckResult = await check(req);
  const spent = await consume('token', { gatehouseUrl: 'https://g.example', secretKey: 'sk_x', method: 'POST', pathAndQuery: '/api/pay' });
  return result.allow && spent.consumed ? 200 : result.status;
}
const middleware: Gatehouse = gatehouse({ gatehouseUrl: 'https://g.example', environment: 'env_1', secretKey: 'sk_x', onUnavailable: 'pass' });
const guard = middleware.require('payments', { mode: 'enforce' });
async function judged(req: { method: string; url: string; headers: Record<string, string> }): Promise<string | null> {
  const result = await middleware.judge('payments', req);
  const problem: Problem | null = result.problem;
  await middleware.close();
  return problem === null ? result.route : problem.type;
}
const hook = fastifyOnRequest({ gatehouseUrl: 'https://g.example', environment: 'env_1', mode: 'monitor' });
void [now, later, ok, handle, middleware, guard, judged, hook, parseJWKS(jwks).kids, library.REASONS];
// @ts-expect-error: onUnavailable is refuse or pass
gatehouse({ gatehouseUrl: 'https://g.example', environment: 'env_1', onUnavailable: 'open' });
// @ts-expect-error: a mode that is not one
createCheck({ gatehouseUrl: 'https://g.example', environment: 'env_1', mode: 'block' });
