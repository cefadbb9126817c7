import { LedgerError } from "../../errors.js";

/**
 * Strict readers for tool inputs. Each refuses a wrong type or an out-of-range value with
 * `InvalidInput` naming the field, so a bad call changes nothing and says what to fix. The MCP
 * server validates too; the ledger does not rely on it.
 */
export type Fields = Readonly<Record<string, unknown>>;

const MAX_TEXT = 65_536;

function bad(message: string, field: string): LedgerError {
  return new LedgerError("InvalidInput", message, { field });
}

export function asFields(input: unknown, allowed: readonly string[]): Fields {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new LedgerError("InvalidInput", "input must be a JSON object");
  }
  const unknown = Object.keys(input).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw new LedgerError(
      "InvalidInput",
      `unknown argument(s): ${unknown.join(", ")} (allowed: ${allowed.join(", ")})`,
      { unknown },
    );
  }
  return input as Fields;
}

interface TextRule {
  max?: number;
  min?: number;
}

export function optText(fields: Fields, name: string, rule: TextRule = {}): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw bad(`${name} must be a string`, name);
  const min = rule.min ?? 1;
  const max = rule.max ?? MAX_TEXT;
  const bytes = Buffer.byteLength(value, "utf8");
  if (value.length < min || bytes > max) {
    throw bad(`${name} must be ${min}..${max} bytes long`, name);
  }
  return value;
}

export function text(fields: Fields, name: string, rule: TextRule = {}): string {
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

export function optBool(fields: Fields, name: string): boolean | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw bad(`${name} must be a boolean`, name);
  return value;
}

export function optTextList(
  fields: Fields,
  name: string,
  rule: { maxItems?: number; maxLength?: number } = {},
): string[] | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  const maxItems = rule.maxItems ?? 256;
  if (!Array.isArray(value) || value.length > maxItems) {
    throw bad(`${name} must be an array of at most ${maxItems} strings`, name);
  }
  return value.map((item, index) => {
    if (typeof item !== "string" || item.length === 0) {
      throw bad(`${name}[${index}] must be a non-empty string`, name);
    }
    if (Buffer.byteLength(item, "utf8") > (rule.maxLength ?? 4096)) {
      throw bad(`${name}[${index}] is too long`, name);
    }
    return item;
  });
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
