/**
 * Condition 1's type-level half (event_opaque_storage_api): none of these compiles against the
 * package's public types, so each line carries `@ts-expect-error`, and `pnpm typecheck` fails as
 * soon as one of them starts to compile (a store, an opener or a write runner becoming public).
 * The runtime half is the events-surface test file.
 */
import type { Ledger } from "@awr/awr-ledger";

type Entry = typeof import("@awr/awr-ledger");

// @ts-expect-error the store class is not exported
export type StoreClass = Entry["LedgerStore"];
// @ts-expect-error the SQLite opener is not exported
export type SqliteOpener = Entry["openSqliteDatabase"];
// @ts-expect-error the PostgreSQL opener is not exported
export type PostgresOpener = Entry["openPostgresDatabase"];
// @ts-expect-error the journaled write runner is not exported
export type WriteRunner = Entry["runJournaledWrite"];
// @ts-expect-error the runtime factory is not exported
export type RuntimeFactory = Entry["createLedgerRuntime"];

export function reachStore(ledger: Ledger): unknown {
  // @ts-expect-error a ledger's store is private
  return ledger.store;
}
