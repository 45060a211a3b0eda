// Compiled (never run) by test/types.test.mjs with tsc when it is installed: the declarations as require() sees them.
import receipts = require('gatehouse-receipts');

const answer: receipts.Verification = receipts.verifySessionToken('token', { jwks: '{"keys":[]}', environment: 'env_1', method: 'GET', pathAndQuery: '/' });
const source = new receipts.JWKSSource('https://g.example', { timeoutMs: 1000 });
void [answer, source.get(), receipts.LIMITS.maxTokenBytes];
