import type { EntityTable } from "../storage/schema.js";
import { type EntityView, toView } from "./entity-row.js";

/** A work item's dependency: the entity it names and whether it blocks readiness. */
export interface DependencyEdge {
  target: string;
  required: boolean;
}

/** A work item that depends on an entity. */
export interface DependentEdge {
  work: string;
  required: boolean;
}

/**
 * What a source says about itself that the projection does not model (migration 006's
 * `sources.note`: a YAML ledger's `current:` block), parsed. Changed only by a reindex.
 */
export interface SourceNote {
  source: string;
  note: unknown;
}

/** Where an entity sits: its kind, its index in that kind's source-ordered list, its source slot. */
interface Slot {
  kind: string;
  index: number;
  sourcePath: string;
  ordinal: number;
}

/**
 * A value computed from a projection and carried from one generation to the next by `update`
 * instead of being rebuilt (docs/design/read-caching.md). Both must be pure functions of the
 * projections they are given: `update(build(prev), prev, next, changed)` must equal
 * `build(next)`.
 */
export interface Derivation<T> {
  build(projection: Projection): T;
  /** `changed`: the keys whose entity was updated in place between `prev` and `next`. */
  update(value: T, prev: Projection, next: Projection, changed: readonly string[]): T;
}

const NO_ENTITIES: readonly EntityView[] = [];

/**
 * The projection (entities and dependencies) at one generation, immutable once built: a newer
 * generation is a new Projection sharing the unchanged parts. Callers must treat everything it
 * returns as read-only.
 */
export class Projection {
  readonly #kinds: ReadonlyMap<string, readonly EntityView[]>;
  readonly #slots: ReadonlyMap<string, Slot>;
  readonly #derived = new Map<Derivation<unknown>, unknown>();

  private constructor(
    readonly generation: number,
    kinds: ReadonlyMap<string, readonly EntityView[]>,
    slots: ReadonlyMap<string, Slot>,
    /** Each work item's dependencies, by target key. */
    readonly dependencies: ReadonlyMap<string, readonly DependencyEdge[]>,
    /** Each entity's dependents, by work key. */
    readonly dependents: ReadonlyMap<string, readonly DependentEdge[]>,
    /** Each entity's indexed_revision. */
    readonly revisions: ReadonlyMap<string, number>,
    /** The sources' notes, in source path order. */
    readonly notes: readonly SourceNote[],
    /**
     * The generation of the last change to any entity's searchable text (see searchableText):
     * what the search index of entities holds is the same at every generation from here on
     * until it moves. A reload sets it to the generation.
     */
    readonly textGeneration: number,
  ) {
    this.#kinds = kinds;
    this.#slots = slots;
  }

  /**
   * Builds a projection from every entity row in source order (source path, then ordinal),
   * every dependency row ordered by (work_key, depends_on), and the sources' notes.
   */
  static fromRows(
    generation: number,
    entities: readonly EntityTable[],
    dependencies: readonly { work_key: string; depends_on: string; required: number }[],
    notes: readonly SourceNote[] = [],
  ): Projection {
    const kinds = new Map<string, EntityView[]>();
    const slots = new Map<string, Slot>();
    const revisions = new Map<string, number>();
    for (const row of entities) {
      let list = kinds.get(row.kind);
      if (list === undefined) {
        list = [];
        kinds.set(row.kind, list);
      }
      slots.set(row.key, {
        kind: row.kind,
        index: list.length,
        sourcePath: row.source_path,
        ordinal: Number(row.ordinal),
      });
      list.push(toView(row));
      revisions.set(row.key, Number(row.indexed_revision));
    }
    const deps = new Map<string, DependencyEdge[]>();
    const dependents = new Map<string, DependentEdge[]>();
    for (const row of dependencies) {
      const required = Number(row.required) === 1;
      pushTo(deps, row.work_key, { target: row.depends_on, required });
      pushTo(dependents, row.depends_on, { work: row.work_key, required });
    }
    return new Projection(generation, kinds, slots, deps, dependents, revisions, notes, generation);
  }

  entity(key: string): EntityView | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#kinds.get(slot.kind)?.[slot.index];
  }

  /** The entity's kind and its index in `ofKind(kind)` (source order). */
  slot(key: string): { kind: string; index: number } | undefined {
    return this.#slots.get(key);
  }

  /** Entities of one kind in source order. */
  ofKind(kind: string): readonly EntityView[] {
    return this.#kinds.get(kind) ?? NO_ENTITIES;
  }

  /** Kinds present, with their entity counts. */
  kindCounts(): Map<string, number> {
    return new Map([...this.#kinds].map(([kind, list]) => [kind, list.length]));
  }

  /** The derivation's value at this generation, computed once. */
  derive<T>(derivation: Derivation<T>): T {
    if (this.#derived.has(derivation)) return this.#derived.get(derivation) as T;
    const value = derivation.build(this);
    this.#derived.set(derivation, value);
    return value;
  }

  /**
   * This projection with `rows` put in place of the entities of the same key, at `generation`;
   * every derivation already computed is carried forward by its `update`. Undefined when a row
   * does not fit its entity's slot (a new key, or another kind or source position): the change
   * was structural and the caller must reload.
   */
  withUpdates(generation: number, rows: readonly EntityTable[]): Projection | undefined {
    const kinds = new Map(this.#kinds);
    const copied = new Set<string>();
    let revisions = this.revisions;
    let textChanged = false;
    const changed: string[] = [];
    for (const row of rows) {
      const slot = this.#slots.get(row.key);
      if (
        slot === undefined ||
        slot.kind !== row.kind ||
        slot.sourcePath !== row.source_path ||
        slot.ordinal !== Number(row.ordinal)
      ) {
        return undefined;
      }
      let list = kinds.get(slot.kind) as EntityView[];
      if (!copied.has(slot.kind)) {
        list = list.slice();
        kinds.set(slot.kind, list);
        copied.add(slot.kind);
      }
      const view = toView(row);
      textChanged ||= searchableText(list[slot.index] as EntityView) !== searchableText(view);
      list[slot.index] = view;
      const revision = Number(row.indexed_revision);
      if (revisions.get(row.key) !== revision) {
        if (revisions === this.revisions) revisions = new Map(revisions);
        (revisions as Map<string, number>).set(row.key, revision);
      }
      changed.push(row.key);
    }
    const next = new Projection(
      generation,
      kinds,
      this.#slots,
      this.dependencies,
      this.dependents,
      revisions,
      this.notes,
      textChanged ? generation : this.textGeneration,
    );
    for (const [derivation, value] of this.#derived) {
      next.#derived.set(derivation, derivation.update(value, this, next, changed));
    }
    return next;
  }
}

/**
 * What the search indexes hold of an entity besides its key and kind (migrations 006 and 009:
 * title, summary, body and next action, on both backends), as one comparable string.
 */
function searchableText(view: EntityView): string {
  return JSON.stringify([view.title, view.summary, view.body, view.attributes["next_action"]]);
}

function pushTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
