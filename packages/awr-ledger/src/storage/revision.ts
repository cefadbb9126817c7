import { LedgerError } from "../errors.js";
import type { LedgerTx } from "./ledger-store.js";
import { PreparedQuery } from "./prepared-query.js";

const spendRevisionQuery = new PreparedQuery<Record<string, never>, { revision: number }>((db) =>
  db
    .updateTable("project_state")
    .set((eb) => ({ revision: eb("revision", "+", 1) }))
    .returning("revision"),
);

const readRevisionQuery = new PreparedQuery<Record<string, never>, { revision: number }>((db) =>
  db.selectFrom("project_state").select("revision"),
);

/**
 * Spends one revision inside a write transaction and returns the new value. Revisions only grow;
 * the caller must hold the write lock (store.write) so no two writers spend the same number.
 */
export async function spendRevision(tx: LedgerTx): Promise<number> {
  const row = await spendRevisionQuery.first(tx, {});
  if (row === undefined) {
    throw new LedgerError(
      "NotFound",
      "The ledger has no project state; run `awr init --accept`.",
      undefined,
      { next: "Run `awr init --accept` in the project's root to give the ledger its identity." },
    );
  }
  return Number(row.revision);
}

/** Reads the current revision inside a transaction. */
export async function readRevision(tx: LedgerTx): Promise<number> {
  const row = await readRevisionQuery.first(tx, {});
  return Number(row?.revision ?? 0);
}

/** RevisionConflict `{expected, actual}` unless `expected` is undefined or equals `actual`. */
export function checkExpectedRevision(expected: number | undefined, actual: number): void {
  if (expected === undefined || expected === actual) return;
  throw new LedgerError(
    "RevisionConflict",
    `expected_revision ${expected} does not match the project revision ${actual}; read the ` +
      "current state, reconsider, and retry with the new revision.",
    { expected, actual },
  );
}
