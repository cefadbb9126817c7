import type { Projection } from "../read/projection.js";

/**
 * The key sets of a work graph query, from the projection's dependency edges. Only required
 * edges extend a closure; optional ones are shown but never pull work in or close a cycle.
 */
export interface GraphClosure {
  /** The roots and every work item that depends on one of them through required edges. */
  affected: Set<string>;
  /** `affected` and every key they require, transitively (missing keys included). */
  selected: Set<string>;
}

/** Compares keys by UTF-16 code units: the one order every list of the answer uses. */
export const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function graphClosure(projection: Projection, roots: Iterable<string>): GraphClosure {
  const affected = new Set<string>();
  const queue: string[] = [];
  const visit = (set: Set<string>, key: string) => {
    if (set.has(key)) return;
    set.add(key);
    queue.push(key);
  };
  for (const root of roots) visit(affected, root);
  while (queue.length > 0) {
    const key = queue.pop() as string;
    for (const edge of projection.dependents.get(key) ?? []) {
      if (edge.required) visit(affected, edge.work);
    }
  }
  const selected = new Set<string>();
  for (const key of affected) visit(selected, key);
  while (queue.length > 0) {
    const key = queue.pop() as string;
    for (const edge of projection.dependencies.get(key) ?? []) {
      if (edge.required) visit(selected, edge.target);
    }
  }
  return { affected, selected };
}

/**
 * One cycle of required edges among `selected`, as the keys along it with the first repeated at
 * the end (`[A, B, A]`; a self-dependency is `[A, A]`), or [] when there is none. Depth-first from
 * each key in key order, children in key order, so the same graph always gives the same cycle;
 * iterative, so a long chain never exhausts the call stack.
 */
export function requiredCycle(projection: Projection, selected: ReadonlySet<string>): string[] {
  const children = (key: string): string[] =>
    (projection.dependencies.get(key) ?? [])
      .filter((edge) => edge.required && selected.has(edge.target))
      .map((edge) => edge.target)
      .sort(byKey);
  const finished = new Set<string>();
  for (const start of [...selected].sort(byKey)) {
    if (finished.has(start)) continue;
    const path = [start];
    const onPath = new Map([[start, 0]]);
    const pending = [children(start)];
    while (pending.length > 0) {
      const next = (pending[pending.length - 1] as string[]).shift();
      if (next === undefined) {
        pending.pop();
        const done = path.pop() as string;
        onPath.delete(done);
        finished.add(done);
        continue;
      }
      const at = onPath.get(next);
      if (at !== undefined) return [...path.slice(at), next];
      if (finished.has(next)) continue;
      onPath.set(next, path.length);
      path.push(next);
      pending.push(children(next));
    }
  }
  return [];
}
