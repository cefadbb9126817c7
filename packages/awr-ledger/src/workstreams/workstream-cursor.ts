import { LedgerError } from "../errors.js";
import { accessDenied } from "./workstream-access.js";

/**
 * A page cursor bound to one reader's scope (`scope_binding`: project, client, workstream and
 * authority_version). A cursor copied to another client or scope is
 * refused as WorkstreamAccessDenied; it never confers access by itself (every page is filtered
 * by the current visibility anyway).
 */
export interface ScopedCursor<T> {
  version: 1;
  scope_binding: string;
  cursor: T;
}

export function bindCursor<T>(binding: string, cursor: T | null): ScopedCursor<T> | null {
  return cursor === null ? null : { version: 1, scope_binding: binding, cursor };
}

/** The inner cursor of `value` (undefined without one), after checking its binding. */
export function openCursor(value: unknown, binding: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  const record = value as Partial<ScopedCursor<Record<string, unknown>>>;
  if (
    typeof value !== "object" ||
    Array.isArray(value) ||
    typeof record.scope_binding !== "string" ||
    typeof record.cursor !== "object" ||
    record.cursor === null
  ) {
    throw new LedgerError(
      "InvalidInput",
      "cursor must be the next_cursor object of a previous page, passed back unchanged.",
      { field: "cursor" },
    );
  }
  if (record.version !== 1 || record.scope_binding !== binding) throw accessDenied();
  return record.cursor;
}

/** A page cursor made at another project revision cannot continue: the set may have changed. */
export function staleCursor(cursorRevision: unknown, revision: number): LedgerError {
  return new LedgerError(
    "RevisionConflict",
    `This cursor was made at project revision ${String(cursorRevision)}; the project is at ${revision} now. Start the listing again without cursor.`,
    { expected: cursorRevision, actual: revision },
  );
}
