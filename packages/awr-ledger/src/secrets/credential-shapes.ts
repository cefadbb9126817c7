/**
 * The two credential shapes that need more than a pattern: the value after `Bearer` and the
 * value after `Basic`. Plain prose after either word ("Bearer authentication", "basic
 * validation") must pass.
 */

const HYPHENATED_WORDS = /^[a-z]+(?:-[a-z]+)+$/i;
const SEPARATOR_OR_DIGIT = /[0-9+/_=-]/;
const INNER_CAPITAL = /^.+[A-Z]/s;
const LOWER = /[a-z]/;

/**
 * An unlabelled value after `Bearer` is a credential when it looks opaque: 32 characters or
 * more, or 8 or more with a digit, an encoding separator or a capital after the first letter.
 * Words joined by hyphens ("token-based") under 32 characters are prose. A labelled value
 * (`Authorization: Bearer x`) is refused by the label rule whatever its shape.
 */
export function isOpaqueBearerValue(value: string): boolean {
  if (value.length >= 32) return true;
  if (value.length < 8 || HYPHENATED_WORDS.test(value)) return false;
  return SEPARATOR_OR_DIGIT.test(value) || (INNER_CAPITAL.test(value) && LOWER.test(value));
}

const BASE64_BODY = /^[A-Za-z0-9+/]*$/;
const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * A value after `Basic` is a credential when it is canonical standard base64 (padding optional)
 * and decodes to something holding the `:` between user-id and password (RFC 7617 section 2).
 * No minimum length: `Basic YTpi` is `a:b`.
 */
export function isBasicCredential(value: string): boolean {
  const body = value.replace(/={1,2}$/, "");
  const padding = value.length - body.length;
  if (!BASE64_BODY.test(body) || body.length % 4 === 1) return false;
  if (padding > 0 && (body.length + padding) % 4 !== 0) return false;
  // The unused low bits of the last digit must be zero, as a strict decoder requires.
  const last = BASE64_DIGITS.indexOf(body.slice(-1));
  const unusedBits = body.length % 4 === 2 ? 0b1111 : body.length % 4 === 3 ? 0b11 : 0;
  if (last >= 0 && (last & unusedBits) !== 0) return false;
  return Buffer.from(body, "base64").includes(0x3a);
}
