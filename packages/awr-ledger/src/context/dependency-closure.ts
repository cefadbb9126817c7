import { LIMITS } from "../core/limits.js";
import type { Projection } from "../read/projection.js";
import { type WorkFact, workFact } from "./work-facts.js";

/**
 * The required-dependency closure of a work item: every item reachable through required
 * `depends_on` edges. A member is resolved only when completed; anything else (cancelled too)
 * is unresolved and its status, next action and blocker are required facts of the packet.
 */
export interface DependencyClosure {
  unresolved: WorkFact[];
  resolved: WorkFact[];
  /** Required targets no source defines. */
  missing: string[];
  /** Closure members that depend on themselves through required edges. */
  cycles: string[];
  /** Optional (non-blocking) direct dependencies, for related context. */
  optional: WorkFact[];
}

/** Bound on the closure, so a pathological graph cannot make a packet unbounded. */
const MAX_CLOSURE = LIMITS.dependencyClosure;

/**
 * The closure of `root` in `projection` (read/projection-cache.ts): the same snapshot the rest
 * of the packet is read from, walked in memory.
 */
export function dependencyClosure(
  projection: Projection,
  root: string,
  revisionOf: (key: string) => number,
): DependencyClosure {
  const edges = new Map<string, string[]>();
  const seen = new Set<string>([root]);
  const optionalKeys: string[] = [];
  let frontier = [root];
  while (frontier.length > 0 && seen.size < MAX_CLOSURE) {
    const next: string[] = [];
    for (const from of frontier) {
      const required: string[] = [];
      for (const dep of projection.dependencies.get(from) ?? []) {
        if (!dep.required) {
          if (from === root) optionalKeys.push(dep.target);
          continue;
        }
        required.push(dep.target);
        if (!seen.has(dep.target)) {
          seen.add(dep.target);
          next.push(dep.target);
        }
      }
      edges.set(from, required);
    }
    frontier = next;
  }
  seen.delete(root);
  const members = [...seen].sort();
  const fact = (key: string) => {
    const entity = projection.entity(key);
    return entity?.kind === "work" ? workFact(entity, revisionOf(key)) : undefined;
  };
  const closure: DependencyClosure = {
    unresolved: [],
    resolved: [],
    missing: [],
    cycles: cycleMembers(root, edges),
    optional: optionalKeys.flatMap((k) => fact(k) ?? []),
  };
  for (const key of members) {
    const item = fact(key);
    if (item === undefined) closure.missing.push(key);
    else if (item.status === "completed") closure.resolved.push(item);
    else closure.unresolved.push(item);
  }
  return closure;
}

/** Keys on a required cycle (Tarjan's strongly connected components of size > 1, or a self-loop). */
function cycleMembers(root: string, edges: ReadonlyMap<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) out.push(...component);
    }
  };
  visit(root);
  return out.sort();
}
