import { unknownNames } from "../core/unknown-names.js";
import { LedgerError } from "../errors.js";

/**
 * Strict readers for awr_workstream's request and for each action's `args`. The catalog checks
 * the tool's top-level arguments against its schema; what an action takes inside `args` depends
 * on the action, so it is read here, and a wrong type, range or name is InvalidInput naming the
 * field (nothing is read, so nothing is lost).
 */
export type Fields = Readonly<Record<string, unknown>>;

const MAX_TEXT = 65_536;

function bad(message: string, field: string): LedgerError {
  return new LedgerError("InvalidInput", message, { field });
}

/**
 * `input` as fields, when every name is in `allowed`. Unknown names are counted, never repeated
 * (a made-up name can carry a secret): `where` is their position, "" for the request itself.
 */
export function asFields(input: unknown, allowed: readonly string[], where = "args"): Fields {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new LedgerError("InvalidInput", "input must be a JSON object");
  }
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key)).length;
  if (unknown > 0) {
    const message = unknownNames(unknown, where, allowed);
    throw new LedgerError("InvalidInput", where === "" ? message : `${where}: ${message}`, {
      field: where === "" ? "input" : where,
      unknown_count: unknown,
    });
  }
  return input as Fields;
}

export function optText(
  fields: Fields,
  name: string,
  rule: { max?: number } = {},
): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw bad(`${name} must be a string`, name);
  const max = rule.max ?? MAX_TEXT;
  if (value.length === 0 || Buffer.byteLength(value, "utf8") > max) {
    throw bad(`${name} must be 1..${max} bytes long`, name);
  }
  return value;
}

export function text(fields: Fields, name: string, rule: { max?: number } = {}): string {
  const value = optText(fields, name, rule);
  if (value === undefined) throw bad(`${name} is required`, name);
  return value;
}

export function optInt(
  fields: Fields,
  name: string,
  range: { min: number; max?: number },
): number | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw bad(`${name} must be an integer`, name);
  }
  if (value < range.min || (range.max !== undefined && value > range.max)) {
    throw bad(`${name} must be in ${range.min}..${range.max ?? "∞"}`, name);
  }
  return value;
}

export function optChoice<T extends string>(
  fields: Fields,
  name: string,
  choices: readonly T[],
): T | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !(choices as readonly string[]).includes(value)) {
    throw bad(`${name} must be one of: ${choices.join(", ")}`, name);
  }
  return value as T;
}

export function choice<T extends string>(fields: Fields, name: string, choices: readonly T[]): T {
  const value = optChoice(fields, name, choices);
  if (value === undefined) throw bad(`${name} is required (one of: ${choices.join(", ")})`, name);
  return value;
}

export function optObject(fields: Fields, name: string): Record<string, unknown> | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw bad(`${name} must be a JSON object`, name);
  }
  return value as Record<string, unknown>;
}
