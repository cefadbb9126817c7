import { MCPClientError, MCPClientErrorCode } from "../client-errors.js";
import { expectArray, expectRecord, nextCursorOf } from "./result-shapes.js";

/**
 * Collects `field` over every page of a list method, following `nextCursor`. A cursor the
 * server already sent ends the listing with INVALID_RESULT instead of looping forever.
 */
export async function collectPages<T>(
  method: string,
  field: string,
  fetchPage: (params: { cursor: string } | undefined) => Promise<unknown>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = expectRecord(
      method,
      await fetchPage(cursor === undefined ? undefined : { cursor }),
    );
    items.push(...expectArray<T>(method, page, field));
    cursor = nextCursorOf(page);
    if (cursor !== undefined && seen.has(cursor)) {
      throw new MCPClientError(
        MCPClientErrorCode.InvalidResult,
        `${method}: the server repeated cursor ${JSON.stringify(cursor)}`,
      );
    }
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return items;
}
