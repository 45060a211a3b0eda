'use strict';
// Base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2), read strictly as GatehouseReceipts'
// Base64URL does: only the URL-safe alphabet, no padding, no whitespace, no length a real encoding never has (4n+1),
// and no non-zero unused bits in the last character, so that every byte string has exactly one spelling.

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** The 6-bit value of a URL-safe base64 character code (only called on characters ALPHABET accepted). */
function sextet(code) {
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 71;
  if (code >= 48 && code <= 57) return code + 4;
  return code === 45 ? 62 : 63;
}

/**
 * Decodes unpadded base64url text; null for anything that is not its one canonical spelling.
 * @param {string} text
 * @returns {Buffer | null}
 */
function decode(text) {
  if (typeof text !== 'string') return null;
  const remainder = text.length % 4;
  if (remainder === 1 || !ALPHABET.test(text)) return null;
  if (remainder !== 0) {
    const last = sextet(text.charCodeAt(text.length - 1));
    if ((remainder === 2 ? last & 0x0f : last & 0x03) !== 0) return null;
  }
  return Buffer.from(text, 'base64url');
}

/**
 * Encodes bytes as unpadded base64url.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function encode(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

module.exports = { decode, encode };
