import { claimHolder } from "../claims/claims.js";
import { LedgerError } from "../errors.js";
import { yamlLedgerV1 } from "../sources/adapters/yaml-ledger-v1.js";
import { loadManifest } from "../sources/read-sources.js";
import type { ChangeEnv } from "./change-kind.js";

/** One work item of a graph: its key, where it comes from, and whether it is archived. */
interface GraphNode {
  key: string;
  source: string;
  archived: boolean;
}

interface GraphEdge {
  from: string;
  to: string;
  /** The source declaring the edge (indexed edges only). */
  source?: string;
}

/** The work graph of the whole project: every work item and required dependency. */
interface WorkGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** One problem of a graph, by a stable name (so the problems a change adds can be told apart). */
interface GraphProblem {
  name: string;
  code: "RuleViolation" | "SourceConflict";
  message: string;
  works: string[];
}

/** Whether a work item's attributes mark it archived (`archived: true`, kept with its extra fields). */
function isArchived(attributes: Record<string, unknown>): boolean {
  const extra = attributes["extra"] as Record<string, unknown> | undefined;
  return attributes["archived"] === true || extra?.["archived"] === true;
}

/** The project's work graph as last indexed. */
async function indexedGraph(env: ChangeEnv): Promise<WorkGraph> {
  return await env.store.read(async (db) => {
    const entities = await db
      .selectFrom("entities")
      .select(["key", "source_path", "attributes"])
      .where("kind", "=", "work")
      .execute();
    const deps = await db
      .selectFrom("dependencies")
      .select(["work_key", "depends_on", "source_path"])
      .where("required", "=", 1)
      .execute();
    return {
      nodes: entities.map((e) => ({
        key: e.key,
        source: e.source_path,
        archived:
          (JSON.parse(e.attributes || "{}") as Record<string, unknown>)["archived"] === true,
      })),
      edges: deps.map((d) => ({ from: d.work_key, to: d.depends_on, source: d.source_path })),
    };
  });
}

/** The source's `[sources.options]` and domain, as the manifest registers it. */
function registered(
  root: string,
  path: string,
): { domain: string; options: Record<string, unknown> } {
  const { manifest } = loadManifest(root);
  const source = manifest.sources.find(
    (s) => s.path === path || s.path.replace(/^\.\//, "") === path,
  );
  return { domain: source?.domain ?? "ledger", options: source?.options ?? {} };
}

/** The graph with the work of `path` replaced by what the ledger text `text` declares. */
function candidateGraph(env: ChangeEnv, indexed: WorkGraph, path: string, text: string): WorkGraph {
  const { domain, options } = registered(env.root, path);
  const parsed = yamlLedgerV1(text.replace(/^\uFEFF/, ""), { path, domain, options });
  const errors = parsed.issues.filter((i) => i.severity === "error");
  if (errors.length > 0) {
    throw new LedgerError(
      "SourceConflict",
      `The changed ${path} would not read as a work ledger (${errors[0]?.message}); nothing was written. Change the edit and preview again.`,
      { path },
    );
  }
  const nodes = indexed.nodes.filter((n) => n.source !== path);
  const edges = indexed.edges.filter((e) => e.source !== path);
  for (const entity of parsed.entities) {
    if (entity.kind !== "work") continue;
    nodes.push({ key: entity.key, source: path, archived: isArchived(entity.attributes) });
  }
  for (const dep of parsed.dependencies) {
    if (dep.required) edges.push({ from: dep.work_key, to: dep.depends_on });
  }
  return { nodes, edges };
}

/** The cycles of required edges, each as its keys in order. */
function cycles(graph: WorkGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const state = new Map<string, "open" | "done">();
  const found: string[][] = [];
  const stack: string[] = [];
  const visit = (key: string): void => {
    state.set(key, "open");
    stack.push(key);
    for (const to of next.get(key) ?? []) {
      const seen = state.get(to);
      if (seen === "open") found.push(stack.slice(stack.indexOf(to)));
      else if (seen === undefined) visit(to);
    }
    stack.pop();
    state.set(key, "done");
  };
  for (const key of [...next.keys()].sort()) if (!state.has(key)) visit(key);
  return found;
}

function problems(graph: WorkGraph): GraphProblem[] {
  const out: GraphProblem[] = [];
  const byKey = new Map<string, GraphNode[]>();
  for (const n of graph.nodes) byKey.set(n.key, [...(byKey.get(n.key) ?? []), n]);
  for (const [key, nodes] of byKey) {
    if (nodes.length < 2) continue;
    out.push({
      name: `duplicate:${key}`,
      code: "SourceConflict",
      message: `work key ${key} would be declared ${nodes.length} times (${[...new Set(nodes.map((n) => n.source))].join(", ")}); give the new item another key, or link the existing task`,
      works: [key],
    });
  }
  for (const e of graph.edges) {
    const to = byKey.get(e.to)?.[0];
    if (to === undefined) {
      out.push({
        name: `missing:${e.from}->${e.to}`,
        code: "RuleViolation",
        message: `${e.from} would require ${e.to}, which is no work item of the project; add it in the same batch or fix the reference`,
        works: [e.from, e.to],
      });
      continue;
    }
    const from = byKey.get(e.from)?.[0];
    if (from !== undefined && !from.archived && to.archived) {
      out.push({
        name: `archive:${e.from}->${e.to}`,
        code: "RuleViolation",
        message: `${e.from} would still require archived ${e.to}; remove that dependency, archive ${e.from} in the same batch, or restore ${e.to} too`,
        works: [e.from, e.to],
      });
    }
  }
  for (const cycle of cycles(graph)) {
    const name = `cycle:${[...cycle].sort().join(",")}`;
    if (out.some((p) => p.name === name)) continue;
    out.push({
      name,
      code: "RuleViolation",
      message: `the required dependencies would form a cycle: ${[...cycle, cycle[0]].join(" -> ")}; remove one of them`,
      works: cycle,
    });
  }
  return out;
}

/**
 * Checks the whole candidate work graph (every source's work, with `path` read from the
 * changed text) before anything is written: a duplicate key (also across sources), a required
 * reference to no work item, a cycle of required dependencies, or unarchived work requiring an
 * archived item refuses the change, naming the items. Problems the indexed graph already has
 * are not the change's and do not refuse it.
 */
export async function checkCandidateGraph(
  env: ChangeEnv,
  path: string,
  afterText: string,
): Promise<void> {
  const indexed = await indexedGraph(env);
  const before = new Set(problems(indexed).map((p) => p.name));
  const added = problems(candidateGraph(env, indexed, path, afterText)).filter(
    (p) => !before.has(p.name),
  );
  const first = added[0];
  if (first === undefined) return;
  throw new LedgerError(
    first.code,
    `The change would break the work graph: ${added.map((p) => p.message).join("; ")}. Nothing was written.`,
    { problems: added.map((p) => ({ problem: p.name.split(":")[0], works: p.works })) },
  );
}

/**
 * Refuses (ClaimConflict) a change to the planning contract of work someone is doing now: an
 * item with a claim in force (main line) cannot be archived, activated or re-planned under it.
 */
export async function refuseOccupied(env: ChangeEnv, works: readonly string[], what: string) {
  if (works.length === 0) return;
  const now = env.now();
  const held = await env.store.read(async (db) => {
    const out: { work: string; session: string | null }[] = [];
    for (const work of works) {
      const claim = await claimHolder(db, work, now, null);
      if (claim !== undefined) out.push({ work, session: claim.session ?? null });
    }
    return out;
  });
  if (held.length === 0) return;
  throw new LedgerError(
    "ClaimConflict",
    `${held.map((h) => h.work).join(", ")} ${held.length === 1 ? "is" : "are"} claimed by an active session, so ${what} would change the plan under it; nothing was written. Wait for the claim to be released (or release it), then preview again; a next_action note may still be changed.`,
    { works: held.map((h) => h.work) },
  );
}
