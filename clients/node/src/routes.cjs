'use strict';
// Routes as an environment's `enforcement.routes` holds them (docs/device-api.md "Routes and modes"), read as
// EnforcementFields.swift reads them, matched as RouteMatch.swift matches ("Matching as the API routes": methods and
// literal segments without regard to ASCII case, a trailing `/` insignificant, HEAD judged as GET), on paths read as
// path.cjs reads them.

const { PathRefusal, readPath, normalizePath, fold, asciiLower, asciiUpper } = require('./path.cjs');

const MODES = Object.freeze(['off', 'monitor', 'enforce']);
const UNMATCHED = '(unmatched)';
const MAX_ROUTES = 50;

/** RFC 9110 token characters, upper-case letters only (methods are registered in capitals). */
function isMethod(text) {
  return typeof text === 'string' && text.length > 0 && text.length <= 32 && /^[A-Z0-9_-]+$/.test(text);
}

const SEGMENT = /^[A-Za-z0-9\-._~!$&'()+,;=:@]+$/;

/**
 * Compiles a route's `match`: `{text, method (null for *), segments}` where a segment is a literal (in ASCII lower
 * case), ONE (`*`, exactly one non-empty segment) or REST (a final `**`, any rest, the empty rest included); a
 * trailing `/` of the pattern is dropped (it does not count).
 * @throws {TypeError} saying what is wrong.
 */
function compileMatch(text) {
  if (typeof text !== 'string') throw new TypeError('must be a string: a method or *, a space and a path pattern, e.g. "POST /api/payments/**"');
  const space = text.indexOf(' ');
  if (space < 0) throw new TypeError('must be a method or *, one space, then a path pattern, e.g. "POST /api/payments/**"');
  const method = text.slice(0, space);
  const pattern = text.slice(space + 1);
  if (method !== '*' && !isMethod(method)) throw new TypeError('must start with an HTTP method in capitals (GET, POST, …) or *');
  if (pattern.charCodeAt(0) !== 0x2f) throw new TypeError('must have a path pattern starting with / after the method');
  if (Buffer.byteLength(pattern, 'utf8') > 1024) throw new TypeError('must have a path pattern of at most 1024 characters');
  const raw = pattern.slice(1).split('/');
  const segments = raw.map((part, i) => {
    const isLast = i === raw.length - 1;
    switch (part) {
      case '**':
        if (!isLast) throw new TypeError('may have ** only as the last segment (any rest of the path)');
        return REST;
      case '*':
        return ONE;
      case '':
        if (!isLast) throw new TypeError('must not have an empty segment (//): paths are matched with repeated / collapsed');
        return '';
      case '.':
      case '..':
        throw new TypeError('must not have . or .. segments: paths are matched with dot segments removed');
      default:
        if (!SEGMENT.test(part)) {
          throw new TypeError('must have path segments of letters, digits and -._~!$&\'()+,;=:@ only (written decoded, without %, ? or spaces); * and ** stand for whole segments');
        }
        return asciiLower(part);
    }
  });
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  return { text, method: method === '*' ? null : method, segments };
}
const ONE = Symbol('one segment');
const REST = Symbol('any rest');

/**
 * Whether a call's `method` (as sent: any case) is judged under a route of method `own` (in capitals): the same
 * method without regard to ASCII case, or HEAD for GET (Express and Node's `http` answer HEAD with the GET handler).
 */
function methodMatches(method, own) {
  if (typeof method !== 'string') return false;
  const sent = asciiUpper(method);
  return sent === own || (own === 'GET' && sent === 'HEAD');
}

/** Whether a call `method` on the folded path `parts` (path.cjs `fold`) matches. */
function matchesFolded(match, method, parts) {
  if (match.method !== null && !methodMatches(method, match.method)) return false;
  let i = 0;
  for (const segment of match.segments) {
    if (segment === REST) return true;
    if (segment === ONE) {
      if (i >= parts.length || parts[i] === '') return false;
    } else if (i >= parts.length || parts[i] !== segment) {
      return false;
    }
    i++;
  }
  return i === parts.length;
}

/** RouteMatch.matches: whether a call `method` on the normalized `segments` (path.cjs `normalizePath`) matches. */
function matches(match, method, segments) {
  return matchesFolded(match, method, fold(segments));
}

/** Whether `name` is a route name: `[a-z0-9][a-z0-9-]{0,39}`. */
function isRouteName(name) {
  return typeof name === 'string' && /^[a-z0-9][a-z0-9-]{0,39}$/.test(name);
}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ReceiptPolicyFields.parse: `{bound, attestation, debug}`, each optional; faults pushed to `errors`. */
function readRequire(value, at, errors) {
  const policy = { bound: false, attestation: null, debug: false };
  if (value === undefined || value === null) return policy;
  if (!isPlainObject(value)) {
    errors.push(`${at}: must be an object {"bound": true, "attestation": "verified"} (each member optional)`);
    return policy;
  }
  for (const [key, member] of Object.entries(value)) {
    if (key === 'bound' && typeof member === 'boolean') policy.bound = member;
    else if (key === 'attestation' && (member === 'verified' || member === null)) policy.attestation = member;
    else if (key === 'debug' && typeof member === 'boolean') policy.debug = member;
    else if (['bound', 'attestation', 'debug'].includes(key)) errors.push(`${at}/${key}: has the wrong type`);
    else errors.push(`${at}/${key}: is not a policy member: require takes bound, attestation and debug`);
  }
  return policy;
}

/**
 * Reads `routes` as EnforcementFields reads an environment's `enforcement.routes`: at most 50, each
 * `{name, match, mode?, require?, consume?}`, names unique.
 * @returns {Array<{name, match, mode, require, consume}>}
 * @throws {TypeError} naming every fault by pointer.
 */
function readRoutes(routes) {
  if (routes === undefined || routes === null) return [];
  if (!Array.isArray(routes)) throw new TypeError('routes must be an array of routes, as in the environment\'s enforcement.routes');
  if (routes.length > MAX_ROUTES) throw new TypeError(`routes must hold at most ${MAX_ROUTES} routes`);
  const errors = [];
  const read = [];
  const seen = new Map();
  routes.forEach((route, i) => {
    const at = `/routes/${i}`;
    if (!isPlainObject(route)) {
      errors.push(`${at}: must be a route {"name", "match", "mode", "require", "consume"}`);
      return;
    }
    const before = errors.length;
    let match = null;
    let mode = null;
    let consume = false;
    let policy = { bound: false, attestation: null, debug: false };
    for (const [key, value] of Object.entries(route)) {
      switch (key) {
        case 'name':
          if (!isRouteName(value)) errors.push(`${at}/name: must be 1 to 40 lower-case letters, digits and hyphens, starting with a letter or digit`);
          break;
        case 'match':
          try {
            match = compileMatch(value);
          } catch (error) {
            errors.push(`${at}/match: ${error.message}`);
          }
          break;
        case 'mode':
          if (value !== null && value !== undefined && !MODES.includes(value)) errors.push(`${at}/mode: must be "off", "monitor" or "enforce"`);
          else mode = value ?? null;
          break;
        case 'require':
          policy = readRequire(value, `${at}/require`, errors);
          break;
        case 'consume':
          if (value !== null && value !== undefined && typeof value !== 'boolean') errors.push(`${at}/consume: must be true or false`);
          else consume = value === true;
          break;
        default:
          errors.push(`${at}/${key}: is not a member of a route (expected name, match, mode, require and consume)`);
      }
    }
    if (!('name' in route)) errors.push(`${at}/name: is required`);
    if (!('match' in route)) errors.push(`${at}/match: is required`);
    if (errors.length !== before) return;
    if (seen.has(route.name)) {
      errors.push(`${at}/name: duplicates /routes/${seen.get(route.name)}/name: each route has its own name`);
      return;
    }
    seen.set(route.name, i);
    read.push(Object.freeze({ name: route.name, match, mode, require: Object.freeze(policy), consume }));
  });
  if (errors.length > 0) throw new TypeError('invalid routes: ' + errors.join('; '));
  return read;
}

/** Reads a mode: 'off', 'monitor' or 'enforce'. */
function readMode(mode, fallback = 'monitor') {
  if (mode === undefined || mode === null) return fallback;
  if (!MODES.includes(mode)) throw new TypeError('mode must be "off", "monitor" or "enforce"');
  return mode;
}

const STRICTNESS = { off: 0, monitor: 1, enforce: 2 };

/** The strictest mode of the environment's and its routes': what a call whose path cannot be read is judged under. */
function strictestMode(mode, routes) {
  return routes.reduce((worst, route) => {
    const own = route.mode ?? mode;
    return STRICTNESS[own] > STRICTNESS[worst] ? own : worst;
  }, mode);
}

/** The first route that matches `method` on the normalized `segments`, or null. */
function findRoute(routes, method, segments) {
  const parts = fold(segments);
  for (const route of routes) if (matchesFolded(route.match, method, parts)) return route;
  return null;
}

/**
 * A route table: the mode of calls no route matches (and of routes that name none), the routes in order, the
 * strictest mode of all, and the routes by name.
 * @param {unknown} routes as in the environment's `enforcement.routes`
 * @param {string} mode
 * @throws {TypeError} naming every fault by pointer.
 */
function makeTable(routes, mode) {
  const read = readRoutes(routes);
  const own = readMode(mode, 'monitor');
  return Object.freeze({ mode: own, routes: read, strictest: strictestMode(own, read), byName: new Map(read.map((route) => [route.name, route])) });
}

/** The mode a call judged under `route` (null: no route matched) is judged under. */
function modeOf(table, route) {
  return route?.mode ?? table.mode;
}

/**
 * How strictly `route` (null: `(unmatched)`) judges, to compare two readings of a path: its mode first, then what it
 * asks of the receipt (`consume` over a verified attestation over `bound`).
 */
function strictnessOf(table, route) {
  const rank = STRICTNESS[modeOf(table, route)] * 8;
  if (route === null) return rank;
  return rank + (route.consume ? 4 : 0) + (route.require?.attestation === 'verified' ? 2 : 0) + (route.require?.bound ? 1 : 0);
}

/**
 * How a route table judges a call `method` on `target` (origin form), as the edge check does:
 * `{route, name, mode, reason}`: the first route that matches (null: `(unmatched)`) and its mode; or, for a path
 * refused as two parsers could read it differently, route null, name `(unmatched)`, the strictest mode of the table
 * and the `path:*` reason.
 *
 * A path that held a dot segment is matched twice, as normalized and as written (dot segments kept, as Express and
 * Node's `http` route it: `/api/orders/..` reaches `/api/orders/:id`), and judged under the stricter of the two
 * readings' routes, `(unmatched)` included, by mode and then by what the route asks of the receipt; on a tie, the
 * route as written (the handler such a framework runs).
 */
function classify(table, method, target) {
  let path;
  try {
    path = readPath(target);
  } catch (refusal) {
    if (!(refusal instanceof PathRefusal)) throw refusal;
    return { route: null, name: UNMATCHED, mode: table.strictest, reason: refusal.reason };
  }
  let route = findRoute(table.routes, method, path.segments);
  if (path.literal !== null) {
    // Of the two readings, the one whose route (or (unmatched)) is stricter judges; the one as written on a tie.
    const written = findRoute(table.routes, method, path.literal);
    if (written !== route && strictnessOf(table, written) >= strictnessOf(table, route)) route = written;
  }
  return { route, name: route === null ? UNMATCHED : route.name, mode: modeOf(table, route), reason: null };
}

module.exports = {
  MODES, UNMATCHED, STRICTNESS, PathRefusal, normalizePath, compileMatch, matches, methodMatches, readRoutes, readMode,
  strictestMode, findRoute, isRouteName, makeTable, modeOf, classify,
};
