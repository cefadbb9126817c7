import { AsyncLocalStorage } from "node:async_hooks";
import { sleep } from "../internal/abort.js";
import { AsyncMutex } from "../internal/async-mutex.js";

/**
 * The project write lock, in two layers:
 * - in process: one FIFO mutex per project id, shared by every store of this process;
 * - across processes: the dialect's holdProjectLock (PostgreSQL a session advisory lock,
 *   postgres/advisory-lock.ts; SQLite a lease row, sqlite/sqlite-lease-lock.ts).
 * Holding is tracked in AsyncLocalStorage so code already inside the lock re-enters it freely.
 */
const mutexes = new Map<string, AsyncMutex>();
const held = new AsyncLocalStorage<ReadonlySet<string>>();

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

export function holdsProjectLock(projectId: string): boolean {
  return held.getStore()?.has(projectId) ?? false;
}

export function runHoldingLock<T>(projectId: string, fn: () => Promise<T>): Promise<T> {
  const current = held.getStore() ?? new Set<string>();
  return held.run(new Set([...current, projectId]), fn);
}

export async function backoff(attempt: number, signal?: AbortSignal): Promise<void> {
  const ceiling = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** Math.min(attempt, 8));
  await sleep(ceiling / 2 + Math.random() * (ceiling / 2), signal);
}

export interface LockOptions {
  signal?: AbortSignal | undefined;
  /** SQLite lease length in milliseconds (default: the store's, else DEFAULT_LEASE_MS). */
  leaseMs?: number | undefined;
}
