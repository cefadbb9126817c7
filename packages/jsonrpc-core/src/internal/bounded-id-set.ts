import type { JsonRpcId } from "../types.js";

/** A set of ids that forgets its oldest entry once it holds `capacity` of them. */
export class BoundedIdSet {
  readonly #ids = new Set<JsonRpcId>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  add(id: JsonRpcId): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.#capacity) {
      const oldest = this.#ids.values().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
  }

  has(id: JsonRpcId): boolean {
    return this.#ids.has(id);
  }

  get size(): number {
    return this.#ids.size;
  }
}
