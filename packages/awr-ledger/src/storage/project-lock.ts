import type { Kysely } from "kysely";
import { sleep } from "../internal/abort.js";
import { AsyncMutex } from "../internal/async-mutex.js";
import type { LedgerSchema } from "./schema.js";

/**
 * The project write lock, in two layers:
 * - in process: one FIFO mutex per project id, shared by every store of this process;
 * - across processes: the dialect's holdProjectLock (PostgreSQL a session advisory lock,
 *   postgres/advisory-lock.ts; SQLite a lease row, sqlite/sqlite-lease-lock.ts).
 * The holder gets a store of its own (LedgerStore.withProjectLock) that carries what is held, a
 * LockHold, which every write transaction through that store enters. Holding is passed, not
 * looked up: AsyncLocalStorage would do it implicitly, but on Node 20 it installs promise hooks
 * that tax every promise of the process, reads included.
 */
const mutexes = new Map<string, AsyncMutex>();

/**
 * The cross-process part of a held project lock, as the holder's write transactions see it.
 * Usually it was taken before the holder's code ran (HELD_LOCK); a SQLite lease folded into the
 * holder's writes (LockOptions.leaseInWrites) is taken inside the first of them instead.
 */
export interface LockHold {
  /**
   * Run first inside each write transaction of the holder. False when another process holds the
   * lock (only before it was taken): nothing was written; end the transaction, retry after a
   * backoff. What it writes commits or rolls back with the transaction.
   */
  enter(tx: Kysely<LedgerSchema>): Promise<boolean>;
  /** Run last inside the holder's final write transaction: the lock is released with it. */
  release(tx: Kysely<LedgerSchema>): Promise<void>;
  /** After a transaction that ran enter (and `released`: release) has committed. */
  committed(released: boolean): void;
  /**
   * The holder's signal (withProjectLock's) while the cross-process lock is still to be taken:
   * it ends a write's wait in enter. Undefined once taken: a begun sequence of writes finishes.
   */
  readonly signal?: AbortSignal | undefined;
}

/** A lock whose cross-process part was taken before the holder ran: transactions just enter. */
export const HELD_LOCK: LockHold = {
  enter: async () => true,
  release: async () => undefined,
  committed: () => undefined,
};

export const DEFAULT_LEASE_MS = 30_000;
const MIN_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 200;

export function mutexFor(projectId: string): AsyncMutex {
  let mutex = mutexes.get(projectId);
  if (mutex === undefined) {
    mutex = new AsyncMutex();
    mutexes.set(projectId, mutex);
  }
  return mutex;
}

export async function backoff(attempt: number, signal?: AbortSignal): Promise<void> {
  const ceiling = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** Math.min(attempt, 8));
  await sleep(ceiling / 2 + Math.random() * (ceiling / 2), signal);
}

export interface LockOptions {
  signal?: AbortSignal | undefined;
  /** SQLite lease length in milliseconds (default: the store's, else DEFAULT_LEASE_MS). */
  leaseMs?: number | undefined;
  /**
   * withProjectLock, SQLite: take the cross-process lease inside the holder's first write
   * transaction and release it inside the one that passes `releasesLock`, instead of a commit
   * of its own before and after (the journal's three steps, docs/design/journal-three-steps.md).
   * Until that first write commits, other processes may still write: every check that must see
   * a settled ledger belongs inside it. Ignored where the lock costs no commits (PostgreSQL).
   */
  leaseInWrites?: boolean | undefined;
}
