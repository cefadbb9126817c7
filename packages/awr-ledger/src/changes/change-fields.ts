import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";

/** A plain JSON object, or undefined. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Refuses (InvalidInput) members of `value` outside `allowed`, naming them. */
export function onlyMembers(
  value: Record<string, unknown>,
  allowed: readonly string[],
  what: string,
): void {
  const extra = Object.keys(value).filter((k) => !allowed.includes(k));
  if (extra.length === 0) return;
  throw new LedgerError(
    "InvalidInput",
    `${what} takes only ${allowed.join(", ")}; remove ${extra.join(", ")}. Nothing was read or written.`,
    { unknown: extra },
  );
}

/** A required non-empty string member (InvalidInput otherwise). */
export function requiredText(value: Record<string, unknown>, name: string, what: string): string {
  const text = value[name];
  if (typeof text === "string" && text.trim() !== "" && Buffer.byteLength(text) <= LIMITS.idBytes) {
    return text;
  }
  throw new LedgerError(
    "InvalidInput",
    `${what} needs ${name}: a non-empty string of at most ${LIMITS.idBytes} bytes. Nothing was read or written.`,
    { field: name },
  );
}

/**
 * The single-line text values of `fields`, checked: a non-empty object of at most
 * LIMITS.changeFields members, each a string of at most LIMITS.changeFieldValueBytes bytes
 * without a line break or another control character.
 */
export function textFields(fields: Record<string, unknown>, what: string): Record<string, string> {
  const entries = Object.entries(fields);
  if (entries.length === 0 || entries.length > LIMITS.changeFields) {
    throw new LedgerError(
      "InvalidInput",
      `${what} needs 1..${LIMITS.changeFields} fields to set. Nothing was read or written.`,
    );
  }
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (
      typeof value !== "string" ||
      Buffer.byteLength(value) > LIMITS.changeFieldValueBytes ||
      /\p{Cc}/u.test(value)
    ) {
      throw new LedgerError(
        "InvalidInput",
        `${what}: ${name} must be a single-line text of at most ${LIMITS.changeFieldValueBytes} bytes. Nothing was read or written.`,
        { field: name },
      );
    }
    out[name] = value;
  }
  return out;
}
