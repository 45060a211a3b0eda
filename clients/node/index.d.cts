// Type declarations of gatehouse-receipts, for require('gatehouse-receipts') (index.cjs); index.d.ts gives the same
// to the ES module entry.

/** Why a receipt is not valid, in the order the checks run. `consumed` only ever comes from Gatehouse. */
export type ReceiptReason =
  | 'malformed'
  | 'signatureInvalid'
  | 'expired'
  | 'wrongEnvironment'
  | 'session:proof'
  | 'unbound'
  | 'unattested'
  | 'consumed';

/** What the backend demands beyond signed, unexpired and of its environment. */
export interface ReceiptPolicy {
  /** The receipt must be bound to the phone's key (`cnf`): else `unbound`. */
  bound?: boolean;
  /** `'verified'`: the receipt's attestation must be verified (and not a debug one unless `debug`): else `unattested`. */
  attestation?: 'verified' | null;
  /** Let a verified debug attestation (simulators, emulators, CI) meet `attestation: 'verified'`. */
  debug?: boolean;
}

/** A P-256 public key as a JWK (a receipt's `cnf.jwk`). */
export interface PublicJWK {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid?: string;
  use?: 'sig';
  alg?: 'ES256';
}

/** A receipt's claims, as GatehouseReceipts writes them (frozen). */
export interface ReceiptClaims {
  readonly iss: 'gatehouse';
  /** The environment id (`env_…`). */
  readonly env: string;
  /** The assessment's request id. */
  readonly sub: string;
  /** Issued at, unix seconds. */
  readonly iat: number;
  /** Expires at, unix seconds. */
  readonly exp: number;
  /** `android` or `ios`; absent in receipts of servers that predate it. */
  readonly plat?: string;
  readonly action: 'allow' | 'challenge';
  readonly att: { readonly provider: string; readonly status: string } | null;
  /** Present when the receipt is bound: the phone's key. */
  readonly cnf?: { readonly jwk: Readonly<PublicJWK> };
}

/** What checking a receipt found. */
export interface Verification {
  /** No reasons. */
  valid: boolean;
  /** Why not, in GatehouseReceipts' order; empty when valid. */
  reasons: ReceiptReason[];
  /** The signed claims, once the signature verified (null before: nothing unsigned is reported). */
  claims: ReceiptClaims | null;
  action: 'allow' | 'challenge' | null;
  bound: boolean;
  platform: string | null;
}

/** Gatehouse's own check (consume()): as Verification, with what the server says beside it. `claims` is null. */
export interface ServerVerification extends Verification {
  /** Whether this call spent the receipt. */
  consumed: boolean;
  environment: string | null;
  attestation: { provider: string; status: string } | null;
  /** RFC 3339, or null. */
  expiresAt: string | null;
}

/** A JWKS object as GET /api/v4/receipts/keys serves it. */
export interface JWKSObject {
  keys: Array<PublicJWK & { kid: string }>;
}

/** A JWKS read and checked, each key imported once. Immutable. */
export declare class KeySet {
  private constructor();
  /** The kids, in the JWKS's order. */
  readonly kids: string[];
  readonly size: number;
  toJSON(): JWKSObject;
}

/** Keys as verifySessionToken takes them. */
export type Keys = KeySet | JWKSObject | string;

export interface VerifyOptions {
  /** The keys (verification is then synchronous), or a JWKSSource (then it answers a Promise). */
  jwks: Keys | JWKSSource;
  /** The environment receipts must be for (`env_…`). */
  environment: string;
  method: string;
  /** The path and query exactly as sent (what the phone signed). */
  pathAndQuery: string;
  /** The `antibot-pop` header, if any. */
  proof?: string | null;
  policy?: ReceiptPolicy | null;
  /** Unix milliseconds; now when absent. */
  nowMs?: number;
}

/**
 * Checks a receipt (the `antibot-token` header) offline: ES256 signature under the JWKS, expiry, environment, the
 * request proof of a bound receipt, the policy. Never throws on what a client sends (reasons instead); throws
 * TypeError / ReceiptKeyError for options that are wrong. It cannot spend a receipt: see consume().
 */
export declare function verifySessionToken(token: string, options: VerifyOptions & { jwks: Keys }): Verification;
export declare function verifySessionToken(token: string, options: VerifyOptions & { jwks: JWKSSource }): Promise<Verification>;
export declare function verifySessionToken(token: string, options: VerifyOptions): Verification | Promise<Verification>;

/** Whether `proof` (`t=<unix ms>,s=<signature>`) is a fresh signature by `jwk` over this call. */
export declare function verifyRequestProof(
  proof: string | null | undefined,
  options: { jwk: PublicJWK; method: string; pathAndQuery: string; nowMs?: number },
): boolean;

/** Reads a JWKS (an object, its JSON text or UTF-8 bytes). Throws ReceiptKeyError when it is not one. */
export declare function parseJWKS(jwks: JWKSObject | string | Uint8Array): KeySet;

/**
 * The receipt keys of a Gatehouse, fetched and kept: while Cache-Control allows, revalidated with the ETag, fetched
 * again on an unknown kid at most once in 30 s, the last good set kept while Gatehouse cannot be reached.
 */
export declare class JWKSSource {
  /**
   * @param url the JWKS URL, or Gatehouse's base URL (then /api/v4/receipts/keys)
   * @param options timeoutMs bounds each fetch (default 2000); fetch and now replace globalThis.fetch and Date.now
   */
  constructor(url: string | URL, options?: { timeoutMs?: number; fetch?: typeof fetch; now?: () => number });
  readonly url: string;
  readonly timeoutMs: number;
  /** Whether a set was ever fetched. */
  readonly hasKeys: boolean;
  readonly stats: { fetches: number; notModified: number; failures: number };
  /** The keys; rejects with GatehouseUnavailableError only when none were ever fetched and none can be now. */
  get(): Promise<KeySet>;
  /** Fetches again for a kid the set does not know, at most once in 30 s (from the last fetch of any kind). */
  refreshForUnknownKid(): Promise<KeySet>;
}

export interface ConsumeOptions {
  /** Gatehouse's base URL. */
  gatehouseUrl: string | URL;
  /** One of the environment's secret keys (`sk_…`). */
  secretKey: string;
  method: string;
  pathAndQuery: string;
  proof?: string | null;
  policy?: ReceiptPolicy | null;
  /** Default 2000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Spends a receipt on Gatehouse (POST /api/v4/receipts/verify with consume true), for an operation that must happen
 * once. Rejects with GatehouseUnavailableError when Gatehouse cannot answer, GatehouseRequestError when it refuses
 * the call (a wrong secret key).
 */
export declare function consume(token: string, options: ConsumeOptions): Promise<ServerVerification>;

/** A route as in the environment's `enforcement.routes`. */
export interface Route {
  /** `[a-z0-9][a-z0-9-]{0,39}`. */
  name: string;
  /** A method or `*`, a space, a path pattern (`*` one segment, a final `**` any rest): `POST /api/payments/**`. */
  match: string;
  /** Absent or null: the environment's mode (for a table in code, the `mode` of the options). */
  mode?: Mode | null;
  require?: ReceiptPolicy | null;
  /** Spend the receipt on Gatehouse when everything else holds. */
  consume?: boolean | null;
}

export type Mode = 'off' | 'monitor' | 'enforce';
export type Outcome = 'missing' | 'invalid' | 'reused' | 'challenge' | 'unmet' | 'verified';

/** What a library does under `enforce` when it cannot judge a call (Gatehouse unreachable): refuse it (503), or pass it uncounted. */
export type OnUnavailable = 'refuse' | 'pass';

/** Where the library says what it must (console by default; null for silence). Never given the secret key. */
export interface Logger {
  warn(message: string): void;
  /** Misconfigurations (a refused secret key, another environment's key), at most once a minute; warn when absent. */
  error?(message: string): void;
  /** Routes given in code (said once); warn when absent. */
  info?(message: string): void;
}

export interface GatehouseOptions {
  /** Gatehouse's base URL: the keys, the routes, and for consume routes and reporting the backend endpoints. */
  gatehouseUrl: string | URL;
  /** The environment id (`env_…`): the secret key must be one of its keys. */
  environment: string;
  /**
   * Absent: the environment's routes and modes, fetched from Gatehouse (GET /api/v4/edge/routes, needs `secretKey`)
   * and refreshed every 30 s. Given (even `[]`): a route table in code, which wins.
   */
  routes?: Route[];
  /** The mode of a route table in code: calls no route matches and routes without one (default monitor). */
  mode?: Mode;
  /** One of the environment's secret keys: needed to fetch the routes, by consume routes and for reporting. */
  secretKey?: string | null;
  /** Under enforce, when Gatehouse cannot be reached to judge a call: 'refuse' (503, the default) or 'pass'. */
  onUnavailable?: OnUnavailable;
  /** Report the outcome counts once a minute (default true; needs secretKey). */
  report?: boolean;
  /** Keys to use instead of fetching them from gatehouseUrl (a JWKSSource to share one, or fixed keys). */
  jwks?: Keys | JWKSSource;
  /** Bounds each call to Gatehouse (default 2000 ms). */
  timeoutMs?: number;
  /** Default 60000. */
  reportIntervalMs?: number;
  /** Between two fetches of the routes (default 30000). */
  routesIntervalMs?: number;
  /** Where failures are said (default console; null for silence). Never given the secret key. */
  logger?: Logger | null;
  fetch?: typeof fetch;
}

/** The problem types of refusals and failures, the same in the edge check and the Python library. */
export type ProblemType =
  | '/problems/receipt-missing'
  | '/problems/receipt-invalid'
  | '/problems/receipt-reused'
  | '/problems/receipt-challenge'
  | '/problems/receipt-unmet'
  | '/problems/gatehouse-unavailable'
  | '/problems/gatehouse-misconfigured';

/** The problem+json body of a refusal. */
export interface Problem {
  type: ProblemType;
  title: string;
  status: number;
  detail: string;
  /** Null for gatehouse-unavailable and gatehouse-misconfigured (the call was not judged). */
  outcome: Outcome | null;
  /** The route, `(unmatched)`, or null when the route table was not known. */
  route: string | null;
  reasons: string[];
}

/** What check(req) and judge(name, req) decided. */
export interface CheckResult {
  /** Whether the call may go on. */
  allow: boolean;
  /** 200 when it may; else 401, 403 (challenge) or 503 (unavailable, misconfigured). */
  status: number;
  /** Null when the call was not judged (mode off, or Gatehouse needed and unreachable or refusing the key). */
  outcome: Outcome | null;
  /** The route's name, `(unmatched)`, or null when the route table is not known yet. */
  route: string | null;
  /** The mode the call was judged under. */
  mode: Mode;
  verification: (Verification & { consumed?: boolean }) | null;
  /** The body of the refusal, null when allowed. */
  problem: Problem | null;
  /** Gatehouse-Outcome and Gatehouse-Route (each only with a value); for a refusal also Content-Type, Cache-Control and Retry-After (503 unavailable). */
  headers: Record<string, string>;
}

/** What the handlers find in `req.gatehouse`. */
export interface GatehouseState {
  outcome: Outcome | null;
  route: string | null;
  verification: (Verification & { consumed?: boolean }) | null;
}

/** A request as Node, Express, Fastify or fetch hands it over. */
export interface RequestLike {
  method?: string;
  url?: string;
  originalUrl?: string;
  headers?: Record<string, string | string[] | undefined> | { get(name: string): string | null };
}

/** A guard's options: `mode` in code overrides the environment's for this guard. */
export interface GuardOptions {
  mode?: Mode | null;
}

/** Connect-style middleware (Express, Connect, node:http). */
export type Middleware = (req: any, res: any, next: (error?: unknown) => void) => void;

export interface Check {
  /** The route table's judgement of `req`; never rejects. */
  (req: RequestLike): Promise<CheckResult>;
  /** A guard's judgement of `req` under the route called `name` (a TypeError for a name that cannot be one). */
  judge(name: string, req: RequestLike, options?: GuardOptions): Promise<CheckResult>;
  /** Sends the counts now. */
  flush(): Promise<void>;
  /** Stops fetching routes and the reporting timer, and sends the counts. */
  close(): Promise<void>;
}

/** The framework-free route table: `const result = await check(req)`; never rejects. */
export declare function createCheck(options: GatehouseOptions): Check;

/** `gh`: the route-table middleware (`app.use(gh)`), with guards for handlers and close(). */
export interface Gatehouse {
  /** The route table: sets `req.gatehouse`, calls next() or answers the refusal. */
  (req: any, res: any, next: (error?: unknown) => void): void;
  /** Express route middleware guarding one handler: `app.post('/api/payments', gh.require('payments'), handler)`. */
  require(name: string, options?: GuardOptions): Middleware;
  /** The guard for any framework: `await gh.judge('payments', req)`; never rejects for a route name. */
  judge(name: string, req: RequestLike, options?: GuardOptions): Promise<CheckResult>;
  check: Check;
  /** Sends the counts now. */
  flush(): Promise<void>;
  /** Stops fetching routes and the reporting timer, and sends the counts: call it on SIGTERM. */
  close(): Promise<void>;
}

/** `const gh = gatehouse({...})`: guards on handlers, and the route table as connect-style middleware. */
export declare function gatehouse(options: GatehouseOptions): Gatehouse;

/** A Fastify onRequest hook (the route table): `fastify.addHook('onRequest', fastifyOnRequest({...}))`; sets `request.gatehouse`. */
export declare function fastifyOnRequest(options: GatehouseOptions): ((request: any, reply: any) => Promise<unknown>) & {
  check: Check;
  judge(name: string, req: RequestLike, options?: GuardOptions): Promise<CheckResult>;
  flush(): Promise<void>;
  close(): Promise<void>;
};

export declare const REASONS: readonly ReceiptReason[];
export declare const LIMITS: Readonly<{
  maxTokenBytes: number;
  maxProofBytes: number;
  maxKeySetBytes: number;
  maxKeys: number;
  proofMaxAgeMs: number;
  proofMaxAheadMs: number;
  issuedAtLeewaySeconds: number;
  receiptLifetimeSeconds: number;
}>;

/** A JWKS or JWK that cannot be used (never raised for what a client sends). */
export declare class ReceiptKeyError extends Error {
  kind: 'key' | 'tooLarge';
}
/** Gatehouse could not be asked (unreachable, too slow, failing). */
export declare class GatehouseUnavailableError extends Error {}
/** Gatehouse refused the call (a wrong secret key, a field it cannot read). */
export declare class GatehouseRequestError extends Error {
  status: number;
}

declare global {
  namespace Express {
    interface Request {
      gatehouse?: GatehouseState;
    }
  }
}
