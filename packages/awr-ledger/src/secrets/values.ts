/**
 * What counts as "a value" after a secret label (`password: …`, `API_KEY=…`). Empty values, JSON
 * and YAML nulls and empty containers, and explicit placeholders carry no secret; anything else
 * does, whatever its shape or length (a labelled number is a value). No word earns an exemption:
 * `test`, `dummy` and `example` values are values.
 */

const PLACEHOLDERS = new Set([
  "",
  "[redacted]",
  "<redacted>",
  "[withheld]",
  "<withheld>",
  "…",
  "...",
]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `<token>`, `<your api key>`: the documentation convention for "put yours here". */
const ANGLE_NAME = /^<[\p{L}\p{N}][\p{L}\p{N} _-]{0,39}>$/u;
/** A placeholder is short; a longer candidate is a value without looking further. */
const MAX_PLACEHOLDER = 128;

/**
 * `[redacted]`, `<redacted>`, `[withheld]`, `<withheld>`, `***` (or more stars), an ellipsis,
 * `<name>`, `${NAME}`, `$NAME`.
 */
export function isPlaceholder(value: string): boolean {
  const text = value.trim();
  if (text.length > MAX_PLACEHOLDER) return false;
  if (PLACEHOLDERS.has(text.toLowerCase())) return true;
  if (/^\*{3,}$/.test(text) || ANGLE_NAME.test(text)) return true;
  if (text.startsWith("${") && text.endsWith("}")) return ENV_NAME.test(text.slice(2, -1));
  return text.startsWith("$") && ENV_NAME.test(text.slice(1));
}

const SKIP_SPACE = /\s*/y;
const EMPTY_LITERAL = /(?:null|~|\{\}|\[\])(?=$|[\s,;}\]])/y;
/** Read no further than a placeholder can reach, so a scan never rereads the text per label. */
const BARE_VALUE = /[^\s,;"'`]{0,129}/y;
const SCHEME_WORD = /(?:bearer|basic|digest|token|negotiate)(?![\p{L}\p{N}_])/iuy;
const LEADING_SCHEME = /^(?:bearer|basic|digest|token|negotiate)(?:\s+|$)/i;

function valueAt(text: string, start: number): string {
  const quote = text[start];
  if (quote === '"' || quote === "'" || quote === "`") {
    const window = text.slice(start + 1, start + 2 + MAX_PLACEHOLDER);
    const close = window.indexOf(quote);
    return close < 0 ? window : window.slice(0, close);
  }
  BARE_VALUE.lastIndex = start;
  BARE_VALUE.test(text);
  return text.slice(start, BARE_VALUE.lastIndex);
}

/** Where the value after `from` starts once whitespace (newlines too) is skipped. */
export function skipSpace(text: string, from: number): number {
  SKIP_SPACE.lastIndex = from;
  SKIP_SPACE.test(text);
  return SKIP_SPACE.lastIndex;
}

/**
 * Whether the text after a label's `:`/`=` (at `from`) holds a value. For an `authorization`
 * label the scheme word (`Bearer`, `Basic`, …) is not the value but what follows it is, so
 * `Authorization: Bearer ${TOKEN}` and `"Authorization": "Bearer <token>"` are placeholders
 * and `Authorization: Bearer x` is a value.
 */
export function hasValueAt(text: string, from: number, skipScheme = false): boolean {
  let start = skipSpace(text, from);
  if (start >= text.length) return false;
  if (skipScheme) {
    SCHEME_WORD.lastIndex = start;
    if (SCHEME_WORD.test(text)) {
      // A scheme word that ends the value (`Bearer`, `Bearer\``) leaves nothing after it.
      if (!/\s/.test(text[SCHEME_WORD.lastIndex] ?? "")) return false;
      start = skipSpace(text, SCHEME_WORD.lastIndex);
      if (start >= text.length) return false;
    }
  }
  EMPTY_LITERAL.lastIndex = start;
  if (EMPTY_LITERAL.test(text)) return false;
  const value = valueAt(text, start);
  return !isPlaceholder(skipScheme ? value.trim().replace(LEADING_SCHEME, "") : value);
}

/** A JSON/YAML field value that carries something: not null, not empty, not a placeholder. */
export function hasStructuredValue(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === "string") return !isPlaceholder(value);
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
