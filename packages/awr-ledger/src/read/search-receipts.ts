import type { RawBuilder, SqlBool } from "kysely";
import { JOURNAL_RECEIPT_TYPES } from "../core/event-types.js";
import { sql } from "../internal/kysely.js";

/**
 * True for an event search may return: every event but the request journal's receipts, which
 * SQLite's event index never holds (migration 011), so the searches that read the events table
 * itself (SQLite's LIKE path, PostgreSQL) leave them out with this.
 */
export function notJournalReceiptSql(alias?: string): RawBuilder<SqlBool> {
  const type = sql.ref(alias === undefined ? "type" : `${alias}.type`);
  return sql<SqlBool>`${type} NOT IN (${sql.join(JOURNAL_RECEIPT_TYPES.map((t) => sql`${t}`))})`;
}
