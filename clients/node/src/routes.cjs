'use strict';
// Routes as an environment's `enforcement.routes` holds them (DEVICE-API.md "Routes and modes"), read as
// EnforcementFields.swift reads them, matched as RouteMatch.swift matches, on paths normalized as NormalizedPath.swift
// normalizes them.

const MODES = Object.freeze(['off', 'monitor', 'enforce']);
const UNMATCHED = '(unmatched)';
const MAX_ROUTES = 50;

/** Why a path cannot be normalized: the reason an edge check gives (`path:…`). */
class PathRefusal extends Error {
  constructor(kind) {
    super(`path:${kind}`);
    this.reason = `path:${kind}`;
  }
}

function hex(c) {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

const HEX_DIGITS = '0123456789ABCDEF';

/** RFC 3986 §2.3: ALPHA, DIGIT, `-`, `.`, `_`, `~`. */
function isUnreserved(b) {
  return (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || (b >= 48 && b <= 57) || b === 45 || b === 46 || b === 95 || b === 126;
}

/**
 * The segments of the path of `pathAndQuery` after the leading `/` (`/` is `['']`, `/a/b/` is `['a', 'b', '']`):
 * percent-encoded unreserved characters decoded, other percent-encodings kept (hex digits in capitals), dot segments
 * removed, repeated `/` collapsed, the query dropped.
 * @throws {PathRefusal} notAPath (not starting with `/`, or bytes outside visible ASCII), invalidEncoding (`%` not
 *   followed by two hex digits), encodedSeparator (`%2F`, `%00`), aboveRoot (`..` above the root).
 */
function normalizePath(pathAndQuery) {
  const s = typeof pathAndQuery === 'string' ? pathAndQuery : '';
  let end = s.indexOf('?');
  if (end < 0) end = s.length;
  if (s.charCodeAt(0) !== 0x2f || end === 0) throw new PathRefusal('notAPath');
  const output = [];
  let segment = '';
  const close = () => {
    if (segment === '.' || segment === '') {
      // a "." segment, or repeated "/": nothing
    } else if (segment === '..') {
      if (output.length === 0) throw new PathRefusal('aboveRoot');
      output.pop();
    } else {
      output.push(segment);
    }
    segment = '';
  };
  let endsWithSlash = true; // "/" alone has the one empty segment
  for (let i = 1; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2f) {
      close();
      endsWithSlash = true;
      continue;
    }
    if (c === 0x25) {
      const high = i + 1 < end ? hex(s.charCodeAt(i + 1)) : -1;
      const low = i + 2 < end ? hex(s.charCodeAt(i + 2)) : -1;
      if (high < 0 || low < 0) throw new PathRefusal('invalidEncoding');
      i += 2;
      const decoded = (high << 4) | low;
      if (decoded === 0x2f || decoded === 0) throw new PathRefusal('encodedSeparator');
      segment += isUnreserved(decoded) ? String.fromCharCode(decoded) : '%' + HEX_DIGITS[high] + HEX_DIGITS[low];
    } else if (c >= 0x21 && c <= 0x7e) {
      segment += s[i];
    } else {
      throw new PathRefusal('notAPath');
    }
    endsWithSlash = false;
  }
  // A last "." or ".." is a directory: "/a/b/.." is "/a/".
  const lastIsDot = segment === '.' || segment === '..';
  close();
  if (endsWithSlash || lastIsDot) output.push('');
  return output;
}

/** RFC 9110 token characters, upper-case letters only (methods are registered in capitals). */
function isMethod(text) {
  return typeof text === 'string' && text.length > 0 && text.length <= 32 && /^[A-Z0-9_-]+$/.test(text);
}

const SEGMENT = /^[A-Za-z0-9\-._~!$&'()+,;=:@]+$/;

/**
 * Compiles a route's `match`: `{text, method (null for *), segments}` where a segment is a literal string,
 * ONE (`*`, exactly one non-empty segment) or REST (a final `**`, any rest, the empty rest included).
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
        return part;
    }
  });
  return { text, method: method === '*' ? null : method, segments };
}
const ONE = Symbol('one segment');
const REST = Symbol('any rest');

/** RouteMatch.matches: whether a call `method` on the normalized `segments` matches. */
function matches(match, method, parts) {
  if (match.method !== null && match.method !== method) return false;
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

/** The first route that matches `method` on `segments`, or null. */
function findRoute(routes, method, segments) {
  for (const route of routes) if (matches(route.match, method, segments)) return route;
  return null;
}

module.exports = { MODES, UNMATCHED, PathRefusal, normalizePath, compileMatch, matches, readRoutes, readMode, strictestMode, findRoute, isRouteName };
