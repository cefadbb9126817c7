import { yamlModule } from "../internal/lazy-dependencies.js";
import { hasStructuredValue } from "./values.js";

/**
 * Schema definitions are structure, not values: `{"token":{"type":"string"}}`,
 * `{"authorization":{"type":"http","scheme":"bearer"}}` and the same in YAML (flow or block) may
 * follow a secret label. The whole definition is checked, not just its `type`: only the known
 * structural keywords may appear; `default`, `example(s)`, `const` and `enum` must be empty or
 * placeholders; a nested field named like a secret must itself be a definition; titles,
 * descriptions and patterns must be clean text. Anything else is treated as a value.
 */

/** A clean-text check for the strings inside a definition (the detector itself, injected). */
export type TextCheck = (text: string) => boolean;

/** The largest definition parsed after one label; longer text is treated as a value. */
export const DEFINITION_LIMIT = 16 * 1024;
/** What one parse costs the budget at least, so many tiny definitions cannot add up to slowness. */
const MIN_PARSE_COST = 256;
const MAX_DEFINITION_DEPTH = 32;

const TYPES = new Set([
  "null",
  "boolean",
  "object",
  "array",
  "number",
  "string",
  "integer",
  "http",
  "apiKey",
  "oauth2",
  "openIdConnect",
]);
const SCHEMES = new Set(["bearer", "basic", "digest", "negotiate"]);
const PARAMETER_PLACES = new Set(["header", "query", "cookie"]);
const TEXT_KEYWORDS = new Set([
  "$ref",
  "$schema",
  "title",
  "description",
  "format",
  "pattern",
  "name",
  "bearerFormat",
  "openIdConnectUrl",
]);
const COUNT_KEYWORDS = new Set(["minLength", "maxLength", "minItems", "maxItems"]);
const NUMBER_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
]);
const FLAG_KEYWORDS = new Set(["readOnly", "writeOnly", "deprecated", "nullable", "uniqueItems"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTypeName(value: unknown): boolean {
  return typeof value === "string" && TYPES.has(value);
}

function keywordIsPublic(key: string, value: unknown, clean: TextCheck, depth: number): boolean {
  if (key === "type") {
    return (
      isTypeName(value) || (Array.isArray(value) && value.length > 0 && value.every(isTypeName))
    );
  }
  if (key === "scheme") return typeof value === "string" && SCHEMES.has(value.toLowerCase());
  if (key === "in") return typeof value === "string" && PARAMETER_PLACES.has(value);
  if (TEXT_KEYWORDS.has(key)) return typeof value === "string" && clean(value);
  if (key === "properties" || key === "$defs" || key === "definitions") {
    return (
      isRecord(value) &&
      Object.entries(value).every(
        ([name, inner]) => clean(name) && isPublicDefinition(inner, clean, depth + 1),
      )
    );
  }
  if (key === "items") return isPublicDefinition(value, clean, depth + 1);
  if (key === "additionalProperties") {
    return typeof value === "boolean" || isPublicDefinition(value, clean, depth + 1);
  }
  if (key === "required") {
    return Array.isArray(value) && value.every((v) => typeof v === "string" && clean(v));
  }
  if (COUNT_KEYWORDS.has(key)) return Number.isSafeInteger(value) && (value as number) >= 0;
  if (NUMBER_KEYWORDS.has(key)) return typeof value === "number";
  if (FLAG_KEYWORDS.has(key)) return typeof value === "boolean";
  if (key === "default" || key === "example" || key === "const") return !hasStructuredValue(value);
  if (key === "examples" || key === "enum") {
    return Array.isArray(value) && value.every((v) => !hasStructuredValue(v));
  }
  return false;
}

/** Whether a parsed JSON/YAML value is a schema or authentication-scheme definition only. */
export function isPublicDefinition(value: unknown, clean: TextCheck, depth = 0): boolean {
  if (depth > MAX_DEFINITION_DEPTH || !isRecord(value)) return false;
  if (!("type" in value) && !("$ref" in value)) return false;
  return Object.entries(value).every(([key, inner]) => keywordIsPublic(key, inner, clean, depth));
}

/** YAML (a superset of JSON) with duplicate keys refused: a later `default: null` cannot hide an earlier value. */
function parsesToDefinition(source: string, clean: TextCheck): boolean {
  let parsed: unknown;
  try {
    parsed = yamlModule().parse(source, {
      uniqueKeys: true,
      maxAliasCount: 0,
      prettyErrors: false,
    });
  } catch {
    return false;
  }
  return isPublicDefinition(parsed, clean);
}

/** End (exclusive) of the `{…}` starting at `start`, honouring quotes; -1 past `limit`. */
function balancedEnd(text: string, start: number, limit: number): number {
  let depth = 0;
  let quote = "";
  const stop = Math.min(text.length, limit);
  for (let i = start; i < stop; i++) {
    const c = text[i];
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

const TAIL_OK = /^(?:$|[\s,;}\])`])/;

/**
 * Whether the text after a label's `:`/`=` is a definition: a flow mapping `{…}` ending where a
 * value would end, or an indented YAML block on the following lines. `budget.left` bounds the
 * characters all such checks in one scan may read, so hostile input stays linear; once spent,
 * candidates count as values (the safe answer).
 */
export function definitionFollows(
  text: string,
  from: number,
  clean: TextCheck,
  budget: { left: number },
): boolean {
  let start = from;
  let sawNewline = false;
  while (start < text.length && /\s/.test(text[start] as string)) {
    if (text[start] === "\n") sawNewline = true;
    start++;
  }
  if (budget.left <= 0) return false;
  if (text[start] === "{") {
    const end = balancedEnd(text, start, start + Math.min(DEFINITION_LIMIT, budget.left));
    budget.left -= end < 0 ? DEFINITION_LIMIT : Math.max(MIN_PARSE_COST, end - start);
    if (end < 0 || !TAIL_OK.test(text.slice(end, end + 1))) return false;
    return parsesToDefinition(text.slice(start, end), clean);
  }
  if (!sawNewline) return false;
  const lineStart = text.lastIndexOf("\n", start) + 1;
  const indent = start - lineStart;
  if (indent === 0) return false;
  const lines: string[] = [];
  let size = 0;
  let at = lineStart;
  while (at < text.length) {
    const newline = text.indexOf("\n", at);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(at, Math.min(end, at + DEFINITION_LIMIT + 1));
    const body = line.trimStart();
    if (body !== "" && line.length - body.length < indent) break;
    size += line.length + 1;
    if (size > DEFINITION_LIMIT || size > budget.left) {
      budget.left -= size;
      return false;
    }
    lines.push(line);
    at = end + 1;
  }
  budget.left -= Math.max(MIN_PARSE_COST, size);
  return parsesToDefinition(lines.join("\n"), clean);
}
