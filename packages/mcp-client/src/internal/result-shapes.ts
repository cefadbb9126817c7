import { MCPClientError, MCPClientErrorCode } from "../client-errors.js";
import type { CompleteResult } from "../mcp-types.js";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Rejects a result that is not an object, naming the method, so a broken server is obvious. */
export function expectRecord(method: string, value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  throw new MCPClientError(
    MCPClientErrorCode.InvalidResult,
    `${method}: the server answered with a non-object result`,
    {
      details: { method, result: value },
    },
  );
}

/** Reads an array field of a list result; a missing field is an empty page, not an error. */
export function expectArray<T>(
  method: string,
  result: Record<string, unknown>,
  field: string,
): T[] {
  const value = result[field];
  if (value === undefined) return [];
  if (Array.isArray(value)) return value as T[];
  throw new MCPClientError(
    MCPClientErrorCode.InvalidResult,
    `${method}: "${field}" is not an array`,
    {
      details: { method, field },
    },
  );
}

/**
 * A result object whose `field` is an array (a missing one reads as empty): the shape of
 * `tools/call`, `resources/read` and `prompts/get` answers.
 */
export function expectResultWithArray<R>(method: string, raw: unknown, field: string): R {
  const result = expectRecord(method, raw);
  // The usual answer already has the array: it is returned as is, not copied.
  if (Array.isArray(result[field])) return result as R;
  return { ...result, [field]: expectArray(method, result, field) } as R;
}

/** Reads `nextCursor`; only a non-empty string continues the listing. */
export function nextCursorOf(result: Record<string, unknown>): string | undefined {
  const cursor = result["nextCursor"];
  return typeof cursor === "string" && cursor.length > 0 ? cursor : undefined;
}

/** A `completion/complete` result: it must carry `completion.values`, an array. */
export function expectCompletion(raw: unknown): CompleteResult {
  if (!isRecord(raw) || !isRecord(raw.completion) || !Array.isArray(raw.completion.values)) {
    throw new MCPClientError(
      MCPClientErrorCode.InvalidResult,
      "completion/complete: the result has no completion.values array",
    );
  }
  return raw as CompleteResult;
}
