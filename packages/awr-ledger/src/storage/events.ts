import { ulid } from "../internal/ulid.js";
import type { LedgerTx } from "./ledger-store.js";
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

/**
 * Appends one immutable event inside a write transaction: assigns the next `seq` (dense, from 1)
 * and a ULID id, and binds it to the given revision. Returns the stored row.
 */
export async function appendEvent(tx: LedgerTx, event: NewEvent): Promise<EventTable> {
  const last = await tx
    .selectFrom("events")
    .select((eb) => eb.fn.max("seq").as("seq"))
    .executeTakeFirst();
  const row: EventTable = {
    id: event.id ?? ulid(),
    seq: Number(last?.seq ?? 0) + 1,
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
  const { importance, branch, ...ordinary } = row;
  await tx
    .insertInto("events")
    .values({
      ...ordinary,
      ...(importance === "normal" ? {} : { importance }),
      ...(branch === null ? {} : { branch }),
    } as EventTable)
    .execute();
  return row;
}
