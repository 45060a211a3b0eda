'use strict';
// Reading JOSE JSON as strictly as GatehouseReceipts does (Sources/JSON/JSONParser.swift and StrictJSON.swift):
// RFC 8259 over UTF-8 bytes, invalid UTF-8 and unpaired surrogate escapes refused, numbers that overflow a double
// refused, nesting bounded at 64, and objects whose member names repeat flagged (JSON.parse silently keeps the last
// duplicate; RFC 7515 §4 says a JOSE header with duplicate names is refused). Names are compared as Swift compares
// strings, by canonical equivalence, so "é" written composed and decomposed is one name twice.
//
// Objects come back with a null prototype (no `__proto__` surprises) and, when a name repeats, the DUPLICATE symbol
// set; only the objects GatehouseReceipts reads strictly are refused for it (a nested object under an unknown claim
// is not), as in Swift.

const MAX_DEPTH = 64;
const DUPLICATE = Symbol('gatehouse.duplicateMember');
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class JSONSyntaxError extends Error {}

/**
 * Parses UTF-8 bytes (or a string, taken as already decoded) as one JSON value.
 * @param {Uint8Array | string} input
 * @returns {unknown}
 * @throws {JSONSyntaxError}
 */
function parse(input) {
  let text;
  if (typeof input === 'string') {
    text = input;
  } else {
    try {
      text = utf8.decode(input);
    } catch {
      throw new JSONSyntaxError('invalid UTF-8');
    }
  }
  const parser = new Parser(text);
  parser.skipWhitespace();
  const value = parser.value(0);
  parser.skipWhitespace();
  if (parser.i !== text.length) throw new JSONSyntaxError('unexpected data after the JSON value');
  return value;
}

function isDigit(c) {
  return c >= 48 && c <= 57;
}

function hexValue(c) {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

class Parser {
  constructor(text) {
    this.s = text;
    this.i = 0;
    // Whether the last string read held a character outside ASCII (names then need Unicode normalization).
    this.wide = false;
  }

  skipWhitespace() {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  value(depth) {
    if (depth >= MAX_DEPTH) throw new JSONSyntaxError('nesting deeper than 64');
    const c = this.s.charCodeAt(this.i);
    switch (c) {
      case 0x7b: return this.object(depth);
      case 0x5b: return this.array(depth);
      case 0x22: return this.string();
      case 0x74: this.literal('true'); return true;
      case 0x66: this.literal('false'); return false;
      case 0x6e: this.literal('null'); return null;
      default:
        if (c === 0x2d || isDigit(c)) return this.number();
        throw new JSONSyntaxError(Number.isNaN(c) ? 'unexpected end of input' : 'unexpected character');
    }
  }

  literal(word) {
    if (this.s.startsWith(word, this.i)) this.i += word.length;
    else throw new JSONSyntaxError('invalid literal');
  }

  object(depth) {
    this.i++;
    const object = Object.create(null);
    this.skipWhitespace();
    if (this.s.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return object;
    }
    // Names seen, normalized (NFC), once a name outside ASCII appears; until then own properties tell duplicates.
    let normalized = null;
    let duplicate = false;
    for (;;) {
      this.skipWhitespace();
      if (this.s.charCodeAt(this.i) !== 0x22) throw new JSONSyntaxError('expected a string key');
      const key = this.string();
      const wide = this.wide;
      this.skipWhitespace();
      if (this.s.charCodeAt(this.i) !== 0x3a) throw new JSONSyntaxError("expected ':'");
      this.i++;
      this.skipWhitespace();
      const value = this.value(depth + 1);
      if (!duplicate) {
        if (normalized === null && !wide) {
          duplicate = Object.prototype.hasOwnProperty.call(object, key);
        } else {
          if (normalized === null) normalized = new Set(Object.keys(object).map((k) => k.normalize('NFC')));
          const form = wide ? key.normalize('NFC') : key;
          duplicate = normalized.has(form);
          normalized.add(form);
        }
      }
      object[key] = value; // the last one, as Swift's JSON subscript reads it
      this.skipWhitespace();
      const c = this.s.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
      } else if (c === 0x7d) {
        this.i++;
        if (duplicate) object[DUPLICATE] = true;
        return object;
      } else {
        throw new JSONSyntaxError(Number.isNaN(c) ? 'unexpected end of input' : "expected ',' or '}'");
      }
    }
  }

  array(depth) {
    this.i++;
    const elements = [];
    this.skipWhitespace();
    if (this.s.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return elements;
    }
    for (;;) {
      this.skipWhitespace();
      elements.push(this.value(depth + 1));
      this.skipWhitespace();
      const c = this.s.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
      } else if (c === 0x5d) {
        this.i++;
        return elements;
      } else {
        throw new JSONSyntaxError(Number.isNaN(c) ? 'unexpected end of input' : "expected ',' or ']'");
      }
    }
  }

  number() {
    const s = this.s;
    const start = this.i;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) i++;
    if (!isDigit(s.charCodeAt(i))) throw new JSONSyntaxError('expected a digit');
    if (s.charCodeAt(i) === 0x30) {
      i++;
    } else {
      while (isDigit(s.charCodeAt(i))) i++;
    }
    if (s.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(s.charCodeAt(i))) throw new JSONSyntaxError("expected a digit after '.'");
      while (isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(s.charCodeAt(i))) throw new JSONSyntaxError('expected a digit in the exponent');
      while (isDigit(s.charCodeAt(i))) i++;
    }
    // Correctly rounded, like Swift's Double(String); an overflow to infinity is refused, an underflow reads as 0
    // (as Swift 6.3 reads it).
    const value = Number(s.slice(start, i));
    if (!Number.isFinite(value)) throw new JSONSyntaxError('number out of range');
    this.i = i;
    return value;
  }

  string() {
    const s = this.s;
    let i = ++this.i;
    let wide = false;
    let out = '';
    let runStart = i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        out += s.slice(runStart, i);
        this.i = i + 1;
        this.wide = wide;
        return out;
      }
      if (c === 0x5c) {
        out += s.slice(runStart, i);
        i++;
        const escape = s.charCodeAt(i);
        i++;
        switch (escape) {
          case 0x22: out += '"'; break;
          case 0x5c: out += '\\'; break;
          case 0x2f: out += '/'; break;
          case 0x62: out += '\b'; break;
          case 0x66: out += '\f'; break;
          case 0x6e: out += '\n'; break;
          case 0x72: out += '\r'; break;
          case 0x74: out += '\t'; break;
          case 0x75: {
            const unit = this.hex4(i);
            i += 4;
            if (unit >= 0xd800 && unit <= 0xdbff) {
              if (s.charCodeAt(i) !== 0x5c || s.charCodeAt(i + 1) !== 0x75) throw new JSONSyntaxError('unpaired surrogate');
              const low = this.hex4(i + 2);
              if (low < 0xdc00 || low > 0xdfff) throw new JSONSyntaxError('unpaired surrogate');
              i += 6;
              out += String.fromCharCode(unit, low);
              wide = true;
            } else if (unit >= 0xdc00 && unit <= 0xdfff) {
              throw new JSONSyntaxError('unpaired surrogate');
            } else {
              out += String.fromCharCode(unit);
              if (unit >= 0x80) wide = true;
            }
            break;
          }
          default:
            throw new JSONSyntaxError(Number.isNaN(escape) ? 'unterminated string' : 'invalid escape');
        }
        runStart = i;
        continue;
      }
      if (c < 0x20) throw new JSONSyntaxError('control character in string');
      if (Number.isNaN(c)) throw new JSONSyntaxError('unterminated string');
      if (c >= 0x80) wide = true;
      i++;
    }
  }

  hex4(at) {
    let value = 0;
    for (let k = 0; k < 4; k++) {
      const d = hexValue(this.s.charCodeAt(at + k));
      if (d < 0) throw new JSONSyntaxError('invalid \\u escape');
      value = (value << 4) | d;
    }
    return value;
  }
}

/** Whether `value` is a JSON object (not an array, not null). */
function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is an object whose member names are unique: what StrictObject accepts. */
function isStrictObject(value) {
  return isObject(value) && value[DUPLICATE] !== true;
}

/** Whether `value` is a JSON integer as Swift's `JSON.integer` reads one: no fraction, below 2^53 in magnitude. */
function isInteger(value) {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 9007199254740992;
}

/** The UTF-8 length of a string. */
function utf8Length(text) {
  // ASCII is the common case: one byte per code unit.
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : Buffer.byteLength(text, 'utf8');
}

/** Swift's String equality: canonical equivalence. */
function sameString(a, b) {
  if (a === b) return true;
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return false;
  return a.normalize('NFD') === b.normalize('NFD');
}

/**
 * StrictObject.string: a string member of 1 to `maxLength` UTF-8 bytes, else undefined.
 * @returns {string | undefined}
 */
function stringMember(object, name, maxLength = 256) {
  const value = object[name];
  if (typeof value !== 'string' || value.length === 0 || utf8Length(value) > maxLength) return undefined;
  return value;
}

module.exports = { parse, JSONSyntaxError, DUPLICATE, isObject, isStrictObject, isInteger, utf8Length, sameString, stringMember };
