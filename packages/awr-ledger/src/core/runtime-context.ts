import type { LedgerStore, LedgerTx } from "../storage/ledger-store.js";
import type { EntityTable } from "../storage/schema.js";

/** The source fields a transition writes back; `undefined` leaves a field as it is. */
export interface WorkFieldChanges {
  status: string;
  next_action?: string | null;
  blocker?: string | null;
}

/** The arguments every write takes besides its own. */
export interface WriteFields {
  expected_revision: number;
  /** Absent: the write is applied directly, without the request journal. */
  request_id?: string | undefined;
}

/** Who is calling: sessions, waits and journal entries belong to this client id. */
export interface RuntimeCaller {
  client: string;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** The tool being run (the catalog's dispatch sets it): the request journal keys on it. */
  tool?: string | undefined;
  /**
   * Runs once a write is known to be new (not a replay), before it takes the project lock: the
   * catalog's `refresh` writes reindex changed sources here.
   */
  beforeWrite?: (() => Promise<void>) | undefined;
}

/**
 * Writes a transition's status/next_action/blocker back into the work item's YAML source (part
 * 1's write-back) and brings the projection row in step. Throws `SourceConflict` when the file
 * changed since it was indexed. Runs inside the domain transaction, before it commits.
 */
export type WorkWriteBack = (
  tx: LedgerTx,
  work: EntityTable,
  changes: WorkFieldChanges,
) => Promise<void>;

/** What the runtime and journal need from the ledger facade. */
export interface RuntimeContext {
  store: LedgerStore;
  /**
   * The project root, where completion checks evidence reports against their recorded sha256;
   * absent for a runtime opened straight on a store (tests), which then skips that check.
   */
  root?: string | undefined;
  /** Milliseconds since the epoch; injectable so claim expiry is testable without sleeping. */
  now(): number;
  writeBack: WorkWriteBack;
  /** SQLite lease length for the project lock (tests shorten it to recover from SIGKILL fast). */
  lockLeaseMs?: number | undefined;
}
