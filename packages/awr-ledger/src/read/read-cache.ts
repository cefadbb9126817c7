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
  version: number;
  values: Map<string, Promise<unknown>>;
}

const spaces = new WeakMap<object, Map<string, Slot>>();

/**
 * Bound on values kept for one version of a space: keys can come from callers (search queries),
 * so a read-only service that never changes revision must not grow without limit. The oldest
 * entry goes first.
 */
export const MAX_VALUES_PER_REVISION = 512;

/** `load()` memoised at the project revision `revision`. */
export function memoAt<T>(
  db: Kysely<LedgerSchema>,
  revision: number,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  return memoIn(db, "revision", revision, key, load);
}

/**
 * `load()` memoised in a named space at `version`, a number that only grows and changes whenever
 * what the space's values depend on changes (the revision, or a generation of the read clock).
 * The contracts above hold with "revision" read as "version".
 */
export function memoIn<T>(
  db: Kysely<LedgerSchema>,
  space: string,
  version: number,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  let byName = spaces.get(db);
  if (byName === undefined) {
    byName = new Map();
    spaces.set(db, byName);
  }
  let slot = byName.get(space);
  if (slot === undefined || slot.version < version) {
    slot = { version, values: new Map() };
    byName.set(space, slot);
  } else if (slot.version > version) {
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
