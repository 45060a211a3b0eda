'use strict';
// The path of a call as route tables read it (docs/device-api.md "The edge check", "Matching as the API routes"), as
// Sources/Gatehouse/Enforcement/NormalizedPath.swift reads it: percent-encoded unreserved characters decoded, other
// percent-encodings kept (hex digits in capitals), dot segments removed, repeated `/` collapsed, the query dropped.
// A path that two parsers could read differently is refused, the first offending byte from the left naming why.

/** Why a path cannot be normalized: the reason an edge check gives (`path:…`). */
class PathRefusal extends Error {
  /** @param {string} kind notAPath, invalidEncoding, encodedSeparator, aboveRoot, semicolon, fragment, backslash, control */
  constructor(kind) {
    super(`path:${kind}`);
    this.name = 'PathRefusal';
    this.kind = kind;
    this.reason = `path:${kind}`;
  }
}

/** Every refusal's kind, as the vectors name them. */
const REFUSALS = Object.freeze(['notAPath', 'invalidEncoding', 'encodedSeparator', 'aboveRoot', 'semicolon', 'fragment', 'backslash', 'control']);

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

/** The refusal a byte (raw, or decoded from `%XX`) brings wherever it stands in the path, or null. */
function refusalOf(b) {
  if (b === 0x3b) return 'semicolon';
  if (b === 0x23) return 'fragment';
  if (b === 0x5c) return 'backslash';
  if (b < 0x20 || b === 0x7f) return 'control';
  return null;
}

/**
 * Reads the path of `pathAndQuery` (an origin-form request target).
 * - `segments`: after the leading `/` (`/` is `['']`, `/a/b/` is `['a', 'b', '']`), normalized as above.
 * - `literal`: only when the path held a dot segment (`.`, `..`, or encoded): the same segments with the dot segments
 *   kept as written (decoded). Frameworks (Express, Node's `http`) do not remove dot segments: Express routes
 *   `/api/orders/..` to `/api/orders/:id`, so route tables read such a path both ways (see routes.cjs `classify`).
 * @returns {{segments: string[], literal: string[] | null}}
 * @throws {PathRefusal} for the first offending byte from the left.
 */
function readPath(pathAndQuery) {
  const s = typeof pathAndQuery === 'string' ? pathAndQuery : '';
  let end = s.indexOf('?');
  if (end < 0) end = s.length;
  if (end === 0 || s.charCodeAt(0) !== 0x2f) throw new PathRefusal('notAPath');
  const output = [];
  const literal = [];
  let sawDot = false;
  let segment = '';
  const close = () => {
    if (segment === '.' || segment === '..') sawDot = true;
    if (segment !== '') literal.push(segment);
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
    endsWithSlash = false;
    if (c !== 0x25) {
      const refusal = refusalOf(c);
      if (refusal !== null) throw new PathRefusal(refusal);
      if (c <= 0x20 || c >= 0x7f) throw new PathRefusal('notAPath');
      segment += s[i];
      continue;
    }
    const high = i + 1 < end ? hex(s.charCodeAt(i + 1)) : -1;
    const low = high >= 0 && i + 2 < end ? hex(s.charCodeAt(i + 2)) : -1;
    if (high < 0 || low < 0) throw new PathRefusal('invalidEncoding');
    i += 2;
    const decoded = (high << 4) | low;
    if (decoded === 0x2f || decoded === 0) throw new PathRefusal('encodedSeparator');
    const refusal = refusalOf(decoded);
    if (refusal !== null) throw new PathRefusal(refusal);
    segment += isUnreserved(decoded) ? String.fromCharCode(decoded) : '%' + HEX_DIGITS[high] + HEX_DIGITS[low];
  }
  // A last "." or ".." is a directory: "/a/b/.." is "/a/".
  const lastIsDot = segment === '.' || segment === '..';
  close();
  if (endsWithSlash || lastIsDot) output.push('');
  if (endsWithSlash) literal.push('');
  return { segments: output, literal: sawDot ? literal : null };
}

/** The normalized segments of `pathAndQuery` (readPath's `segments`). @throws {PathRefusal} */
function normalizePath(pathAndQuery) {
  return readPath(pathAndQuery).segments;
}

/** `text` with its ASCII letters in lower case (other characters as they are: `K`, the Kelvin sign, stays). */
function asciiLower(text) {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : text;
}

/** `text` with its ASCII letters in upper case (only those: `ſ` does not become `S`). */
function asciiUpper(text) {
  return /[a-z]/.test(text) ? text.replace(/[a-z]+/g, (letters) => letters.toUpperCase()) : text;
}

/**
 * Segments as routes compare them: ASCII letters in lower case and a trailing `/` dropped (`/API/Pay/` is
 * `['api', 'pay']`, `/` is `[]`), because frameworks route that way (Express ignores case and a trailing `/`).
 */
function fold(segments) {
  const parts = segments.map(asciiLower);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * The path and query of an absolute-form request target (`http://host/path?q` is `/path?q`; nothing after the
 * authority is `/` plus whatever follows); anything else as it is. The authority ends at the first `/`, `?`, `#` or
 * `\` (which URL parsers read as `/`), so `http://host\a/b` is `/\a/b`, refused for its backslash, never `/b`.
 */
function originForm(target) {
  const scheme = /^https?:\/\//i.exec(target);
  if (scheme === null) return target;
  const rest = target.slice(scheme[0].length);
  const cut = rest.search(/[/?#\\]/);
  const tail = cut < 0 ? '' : rest.slice(cut);
  return tail.startsWith('/') ? tail : '/' + tail;
}

module.exports = { PathRefusal, REFUSALS, readPath, normalizePath, fold, asciiLower, asciiUpper, originForm };
