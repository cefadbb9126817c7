import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";

/**
 * Per-database memo of values valid at one project revision, for reads that depend on more than
 * the projection (search also ranks evidence and events; the projection itself is cached by
 * projection-cache.ts, which survives writes that do not change it). Every write spends a
 * revision, so a value computed at revision R stays valid for as long as the project is at R;
 * the first read at a newer revision drops the whole slot.
 *
 * Contracts:
 * - Callers read the revision BEFORE loading (`Ledger.#read` does), so a cached value is never
 *   older than its key. A load racing a write may see the newer state; a reader still at the old
 *   revision then gets that newer state, exactly as it would without the cache (reads are not
 *   transactions).
 * - Time-dependent state (claims expire by the clock) does not belong here: it is read per call.
 * - Cached values are shared between calls: callers must treat them as read-only.
 */
interface Slot {
  revision: number;
  values: Map<string, Promise<unknown>>;
}

const slots = new WeakMap<object, Slot>();

/**
 * Bound on values kept for one revision: keys can come from callers (search queries), so a
 * read-only service that never changes revision must not grow without limit. The oldest
 * entry goes first.
 */
export const MAX_VALUES_PER_REVISION = 512;

export function memoAt<T>(
  db: Kysely<LedgerSchema>,
  revision: number,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  let slot = slots.get(db);
  if (slot === undefined || slot.revision < revision) {
    slot = { revision, values: new Map() };
    slots.set(db, slot);
  } else if (slot.revision > revision) {
    // A reader that started before the latest write: answer it without disturbing the slot.
    return load();
  }
  const cached = slot.values.get(key) as Promise<T> | undefined;
  if (cached !== undefined) return cached;
  const values = slot.values;
  const pending = load();
  values.set(key, pending);
  if (values.size > MAX_VALUES_PER_REVISION) {
    const oldest = values.keys().next().value;
    if (oldest !== undefined) values.delete(oldest);
  }
  // A failed load is not remembered: the next call retries.
  pending.catch(() => {
    if (values.get(key) === pending) values.delete(key);
  });
  return pending;
}
