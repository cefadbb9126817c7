import { sql } from "../internal/kysely.js";
import { ulid } from "../internal/ulid.js";
import type { LedgerTx } from "./ledger-store.js";
import { PreparedQuery } from "./prepared-query.js";
import type { EventTable } from "./schema.js";

export interface NewEvent {
  /** Defaults to a fresh ULID (a caller that must name the event before it exists passes one). */
  id?: string | undefined;
  type: string;
  /** The revision this event belongs to, usually the one just returned by spendRevision. */
  revision: number;
  work?: string | null | undefined;
  session?: string | null | undefined;
  client?: string | null | undefined;
  operation_id?: string | null | undefined;
  summary?: string | null | undefined;
  payload?: Record<string, unknown> | undefined;
  /** Defaults to now. */
  time?: string | undefined;
  /** Defaults to `normal`. */
  importance?: string | undefined;
  /** The work branch; null or absent = main. */
  branch?: string | null | undefined;
}

type EventRow = Omit<EventTable, "seq">;

/** The event insert for each shape: with or without `importance`, with or without `branch`. */
const insertEventQueries = new Map<string, PreparedQuery<EventRow, { seq: number }>>();

function insertEventQuery(
  withImportance: boolean,
  withBranch: boolean,
): PreparedQuery<EventRow, { seq: number }> {
  const shape = `${withImportance}:${withBranch}`;
  let query = insertEventQueries.get(shape);
  if (query === undefined) {
    query = new PreparedQuery<EventRow, { seq: number }>((db, $) => {
      const values = {
        id: $("id"),
        revision: $("revision"),
        type: $("type"),
        work: $("work"),
        session: $("session"),
        client: $("client"),
        operation_id: $("operation_id"),
        summary: $("summary"),
        payload: $("payload"),
        time: $("time"),
        ...(withImportance ? { importance: $("importance") } : {}),
        ...(withBranch ? { branch: $("branch") } : {}),
        seq: sql<number>`(SELECT coalesce(max(seq), 0) + 1 FROM events)`,
      };
      return db
        .insertInto("events")
        .values(values as typeof values & EventTable)
        .returning("seq");
    });
    insertEventQueries.set(shape, query);
  }
  return query;
}

/**
 * Appends one immutable event inside a write transaction: assigns the next `seq` (dense, from 1;
 * computed by the INSERT itself, so an event costs one statement) and a ULID id, and binds it to
 * the given revision. Returns the stored row. The caller holds the write lock (store.write), so
 * no two writers compute the same seq.
 */
export async function appendEvent(tx: LedgerTx, event: NewEvent): Promise<EventTable> {
  const row: EventRow = {
    id: event.id ?? ulid(),
    revision: event.revision,
    type: event.type,
    work: event.work ?? null,
    session: event.session ?? null,
    client: event.client ?? null,
    operation_id: event.operation_id ?? null,
    summary: event.summary ?? null,
    payload: JSON.stringify(event.payload ?? {}),
    time: event.time ?? new Date().toISOString(),
    importance: event.importance ?? "normal",
    branch: event.branch ?? null,
  };
  // `normal` and NULL are the columns' defaults, so an ordinary main event inserts only the
  // columns every schema has.
  const query = insertEventQuery(row.importance !== "normal", row.branch !== null);
  const inserted = await query.first(tx, row);
  if (inserted === undefined) throw new Error("internal: an event insert returned no seq");
  return { ...row, seq: Number(inserted.seq) };
}
