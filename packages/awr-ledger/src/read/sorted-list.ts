/**
 * Edits of lists kept sorted by a total order, for derivations that update one entry at a time
 * (docs/design/read-caching.md). `compare(entry, probe)` orders an entry against a probe of the
 * same sort key; entries are unique under it. The lists are edited in place: callers copy a
 * shared list once (`list.slice()`) before their first edit.
 */
export function lowerBound<T, P>(
  list: readonly T[],
  probe: P,
  compare: (entry: T, probe: P) => number,
): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(list[mid] as T, probe) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Removes the entry equal to `probe`; false when there is none. */
export function removeSorted<T, P>(
  list: T[],
  probe: P,
  compare: (entry: T, probe: P) => number,
): boolean {
  const at = lowerBound(list, probe, compare);
  if (at >= list.length || compare(list[at] as T, probe) !== 0) return false;
  list.splice(at, 1);
  return true;
}

/** Inserts `entry` in order (`key(entry)` is its probe). */
export function insertSorted<T, P>(
  list: T[],
  entry: T,
  key: (entry: T) => P,
  compare: (entry: T, probe: P) => number,
): void {
  list.splice(lowerBound(list, key(entry), compare), 0, entry);
}

/** A lazily copied list: `edit()` returns a private copy on first use, `value` the result. */
export class CopyOnWrite<T> {
  #list: readonly T[];
  #copied = false;

  constructor(list: readonly T[]) {
    this.#list = list;
  }

  get value(): readonly T[] {
    return this.#list;
  }

  edit(): T[] {
    if (!this.#copied) {
      this.#list = this.#list.slice();
      this.#copied = true;
    }
    return this.#list as T[];
  }
}
