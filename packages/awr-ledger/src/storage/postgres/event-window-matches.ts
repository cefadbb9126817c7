import type { Kysely } from "kysely";
import type { LedgerSchema } from "../schema.js";

/** An event that matched a search, with its place in the log. */
export interface SeqRow {
  seq: number;
}

/**
 * The newest matches of one search among the newest `window` events, as seen when the log's
 * newest event was `top`; newest first, at most the number the search asked for.
 */
export interface WindowMatches<Row extends SeqRow> {
  top: number;
  rows: Row[];
}

/**
 * Matches of a search among the log's newest events, kept per database so that the next search
 * with the same key reads only the events appended since (docs/design/read-caching.md, "Event
 * matches"). Sound because events are immutable and appended in `seq` order under the write
 * lock: whether an event matches a given search (and how it scores) never changes, and once a
 * reader has seen the event at `seq` S it has seen every event before it. So another process's
 * writes only add events after `top`, and no revision needs to be compared.
 */
const caches = new WeakMap<object, Map<string, WindowMatches<SeqRow>>>();

/** Searches remembered per database; the least recently used goes first. */
export const MAX_REMEMBERED_SEARCHES = 128;

/** The matches remembered for `key`, if any. */
export function rememberedMatches<Row extends SeqRow>(
  db: Kysely<LedgerSchema>,
  key: string,
): WindowMatches<Row> | undefined {
  return caches.get(db)?.get(key) as WindowMatches<Row> | undefined;
}

/**
 * The newest `max` matches of the window ending at `fresh.top`, from `fresh` (the matches after
 * `earlier.top`, or the whole window when the gap is wider than it) and the `earlier` matches
 * that are still inside the window; remembered for `key` unless a newer answer already is.
 */
export function mergeMatches<Row extends SeqRow>(
  db: Kysely<LedgerSchema>,
  key: string,
  earlier: WindowMatches<Row> | undefined,
  fresh: WindowMatches<Row>,
  window: number,
  max: number,
): WindowMatches<Row> {
  const floor = fresh.top - window;
  const kept = earlier === undefined ? [] : earlier.rows.filter((r) => r.seq > floor);
  const merged = { top: fresh.top, rows: [...fresh.rows, ...kept].slice(0, max) };
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  const current = cache.get(key);
  if (current === undefined || current.top <= merged.top) {
    cache.delete(key);
    cache.set(key, merged);
    if (cache.size > MAX_REMEMBERED_SEARCHES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
  }
  return merged;
}
