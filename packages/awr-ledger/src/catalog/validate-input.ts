import { unknownNames } from "../core/unknown-names.js";
import { LedgerError } from "../errors.js";
import type { JsonSchema, JsonType, ObjectSchema } from "./json-schema.js";

/**
 * Checks tool arguments against the catalog's JSON Schema subset (json-schema.ts) and returns a
 * clean copy: only the declared arguments, `null` treated as omitted, defaults filled in. Every
 * problem is collected, so one answer names them all. Two deliberate readings of the keywords:
 * `maxLength` counts UTF-8 bytes (what storage counts), and an
 * unknown argument is never copied, so `__proto__` or `constructor` as a key is just refused.
 *
 * A name the caller made up is never repeated back (core/unknown-names.ts): unknown arguments and
 * fields are counted at their position (`payload: 1 unknown field`), and an entry of an open map
 * (payload metrics) is named by its place (`payload.metrics[entry 2]`), never by its key.
 *
 * A hand-written validator rather than Ajv or zod: loading either costs more than half of a cold
 * `awr status` (measured in docs/design/operation-catalog.md), and this subset is small. It walks
 * the schema, never the data, so its recursion is bounded by the schema's depth.
 */
/**
 * What a transport renames an own `__proto__` key of the raw JSON to before a parser that would
 * turn it into a prototype sees it (see awr-server's shieldPrototypeKeys): refused, and counted,
 * like any unknown argument.
 */
export const PROTO_KEY_ALIAS = "__proto__:own";

/**
 * An argument whose schema depends on another argument's value, checked at the gate but never
 * listed (JSON Schema would need if/then, which hosts render poorly): awr_workstream's `args`
 * by its `action`. When every `when` argument has its value and `by` names a key of `schemas`,
 * `field` is checked against that schema (an omitted one as `{}`); otherwise it stays as the
 * listed schema left it, for the implementation to answer.
 */
export interface Variants {
  readonly by: string;
  readonly field: string;
  readonly when?: Readonly<Record<string, unknown>>;
  readonly schemas: Readonly<Record<string, ObjectSchema>>;
}

/** A tool's schema as the gate checks it: the listed one, plus its variants. */
export type CheckedSchema = ObjectSchema & { readonly variants?: Variants };

export interface InputIssue {
  /** Dotted path of the argument, e.g. `completion.acceptance.0.criterion`. */
  path: string;
  message: string;
}

export function validateInput(
  tool: string,
  schema: CheckedSchema,
  input: unknown,
): Record<string, unknown> {
  const issues: InputIssue[] = [];
  const value = check(schema, input ?? {}, "", issues) as Record<string, unknown>;
  const variant = schema.variants;
  if (variant !== undefined && issues.length === 0) {
    const when = Object.entries(variant.when ?? {}).every(([name, v]) => value[name] === v);
    const key = value[variant.by];
    const chosen =
      when && typeof key === "string" && Object.hasOwn(variant.schemas, key)
        ? variant.schemas[key]
        : undefined;
    if (chosen !== undefined) {
      value[variant.field] = check(chosen, value[variant.field] ?? {}, variant.field, issues);
    }
  }
  if (issues.length > 0) throw invalidArguments(tool, issues);
  return value;
}

export function invalidArguments(tool: string, issues: readonly InputIssue[]): LedgerError {
  const list = issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`));
  return new LedgerError(
    "InvalidInput",
    `Invalid arguments for ${tool}: ${list.join("; ")}. Fix them as the tool's input schema says.`,
    { issues: [...issues] },
  );
}

function jsonType(value: unknown): JsonType | "undefined" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string" || typeof value === "boolean" || typeof value === "object") {
    return typeof value as JsonType;
  }
  return "undefined";
}

function typeMatches(allowed: readonly JsonType[], actual: JsonType | "undefined"): boolean {
  return (
    allowed.includes(actual as JsonType) || (actual === "integer" && allowed.includes("number"))
  );
}

function describeType(types: readonly JsonType[]): string {
  const shown = types.filter((t) => t !== "null");
  return shown.length === 1 ? `a ${shown[0]}` : `one of ${shown.join(", ")}`;
}

function check(schema: JsonSchema, value: unknown, path: string, issues: InputIssue[]): unknown {
  const issue = (message: string) => issues.push({ path, message });
  const types = schema.type === undefined ? undefined : [schema.type].flat();
  const actual = jsonType(value);
  if (types !== undefined && !typeMatches(types, actual)) {
    issue(`must be ${describeType(types)}`);
    return value;
  }
  if (schema.enum !== undefined && !schema.enum.includes(value as string | null)) {
    issue(`must be one of ${schema.enum.filter((e) => e !== null).join(", ")}`);
    return value;
  }
  if (schema.const !== undefined && value !== schema.const) {
    issue(`must be ${JSON.stringify(schema.const)}`);
    return value;
  }
  switch (actual) {
    case "string":
      checkString(schema, value as string, issue);
      return value;
    case "integer":
    case "number":
      checkNumber(schema, value as number, issue);
      return value;
    case "array":
      return checkArray(schema, value as unknown[], path, issues);
    case "object":
      return checkObject(schema, value as Record<string, unknown>, path, issues);
    default:
      return value;
  }
}

function checkString(schema: JsonSchema, value: string, issue: (m: string) => void): void {
  if (schema.minLength !== undefined && [...value].length < schema.minLength) {
    issue(
      schema.minLength === 1
        ? "must not be empty"
        : `needs at least ${schema.minLength} characters`,
    );
  }
  if (schema.maxLength !== undefined && Buffer.byteLength(value, "utf8") > schema.maxLength) {
    issue(`must be at most ${schema.maxLength} bytes of UTF-8`);
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) {
    issue(`must match ${schema.pattern}`);
  }
}

function checkNumber(schema: JsonSchema, value: number, issue: (m: string) => void): void {
  if (!Number.isFinite(value) || (schema.type === "integer" && !Number.isSafeInteger(value))) {
    issue("must be a safe integer");
  } else if (
    (schema.minimum !== undefined && value < schema.minimum) ||
    (schema.maximum !== undefined && value > schema.maximum)
  ) {
    issue(`must be from ${schema.minimum ?? "-∞"} to ${schema.maximum ?? "∞"}`);
  }
}

function checkArray(
  schema: JsonSchema,
  value: readonly unknown[],
  path: string,
  issues: InputIssue[],
): unknown[] {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    issues.push({ path, message: `needs at least ${schema.minItems} item(s)` });
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    issues.push({ path, message: `may hold at most ${schema.maxItems} items` });
    return [...value];
  }
  const items = schema.items;
  return items === undefined
    ? [...value]
    : value.map((item, index) => check(items, item, join(path, String(index)), issues));
}

function checkObject(
  schema: JsonSchema,
  value: Readonly<Record<string, unknown>>,
  path: string,
  issues: InputIssue[],
): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    issues.push({ path, message: `may hold at most ${schema.maxProperties} entries` });
    return out;
  }
  let unknown = 0;
  for (const [index, key] of keys.entries()) {
    const field = value[key];
    const declared = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (declared === undefined) {
      const extra = schema.additionalProperties;
      if (extra === false || extra === undefined) {
        unknown++;
      } else {
        const at = `${path}[entry ${index + 1}]`;
        if (schema.propertyNames !== undefined) check(schema.propertyNames, key, at, issues);
        // `true`: any value, passed on as it came, for the implementation to read.
        Object.defineProperty(out, key, {
          value: extra === true ? field : check(extra, field, at, issues),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      continue;
    }
    if (field === null && !acceptsNull(declared)) {
      check(declared, field, join(path, key), issues);
      continue;
    }
    if (field === null || field === undefined) continue;
    out[key] = check(declared, field, join(path, key), issues);
  }
  if (unknown > 0)
    issues.push({ path, message: unknownNames(unknown, path, Object.keys(properties)) });
  const missing = (schema.required ?? []).filter((name) => out[name] === undefined);
  for (const name of missing) issues.push({ path: join(path, name), message: "is required" });
  for (const alternatives of schema.anyOf === undefined ? [] : [schema.anyOf]) {
    const met = alternatives.some((alt) => (alt.required ?? []).every((n) => out[n] !== undefined));
    if (!met) {
      const names = alternatives.map((alt) => (alt.required ?? []).join(" and "));
      issues.push({ path, message: `give ${names.join(" or ")}` });
    }
  }
  for (const [name, declared] of Object.entries(properties)) {
    if (out[name] === undefined && declared.default !== undefined) out[name] = declared.default;
  }
  return out;
}

function acceptsNull(schema: JsonSchema): boolean {
  return schema.type === undefined || [schema.type].flat().includes("null");
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
