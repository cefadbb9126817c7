import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { canonicalJson } from "../journal/fingerprint.js";
import {
  type ActiveClaim,
  activeClaims,
  type EntityView,
  stringsOf,
  workNotFound,
} from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import { projectionAt } from "../read/projection-cache.js";
import type { ReadyDiagnostic } from "../read/work-brief.js";
import type { LedgerSchema } from "../storage/schema.js";
import { byKey, graphClosure, requiredCycle } from "./graph-closure.js";

export interface WorkGraphInput {
  roots?: readonly string[] | undefined;
  limit?: number | undefined;
}

/** Where a work item or a dependency is written, with its source file's fingerprint. */
export interface GraphSourceRef {
  path: string;
  line_start: number;
  line_end: number;
  source_fingerprint: string | null;
}

export interface GraphNode {
  key: string;
  id: string;
  title: string;
  status: string;
  /** The ledger marks the item `archived: true`. */
  archived: boolean;
  /** Status ready, every required dependency completed and no claim in force. */
  ready: boolean;
  paths: string[];
  diagnostics: ReadyDiagnostic[];
  active_claims: Omit<ActiveClaim, "work">[];
  source_ref: GraphSourceRef;
}

export interface GraphEdge {
  from: string;
  to: string;
  required: boolean;
  /** The dependent work item's entry, where the dependency is declared. */
  source_ref: GraphSourceRef;
}

/** awr_work_graph's answer (docs/compatibility/mcp-protocol.md). */
export interface WorkGraphResult {
  project_revision: number;
  /** The branch whose claims were counted (null = main). */
  branch: string | null;
  /** Milliseconds since the epoch: the clock claims were judged against. */
  evaluated_at: number;
  /** `sha256:` and the hex digest of the canonical JSON of the graph's structure (graphFingerprint). */
  graph_fingerprint: string;
  /** The fingerprint of each source file holding a node, by path. */
  sources: Record<string, string>;
  roots: string[];
  /** The roots and their required dependents, transitively (all work when roots is empty). */
  affected: string[];
  /** `affected` and every work item they require, transitively. */
  nodes: GraphNode[];
  /** Every dependency of a node, optional ones included. */
  edges: GraphEdge[];
  /** Keys a node requires that are no work item of the ledger. */
  missing_required: string[];
  /** A cycle of required dependencies among the nodes (first key repeated last), or []. */
  cycle: string[];
  graph_valid: boolean;
  /** Always true: a closure larger than `limit` is BudgetExceeded, never a partial graph. */
  complete: true;
  /** Always false: the graph admits nothing; a claim does. */
  execution_admitted: false;
  next_action: string;
}

const NEXT_ACTION =
  "Readiness here is an observation, not a lease: prepare the work's context and acquire a claim before dispatching it, and query again after any source or revision change. Scheduling and concurrency stay with the host.";

/**
 * The dependency graph around `roots` (all work when none is given): the roots, what requires
 * them and what they all require, with each node's readiness and claims on `branch` at one
 * revision. A closure larger than `limit` is BudgetExceeded, naming the size it needs; a missing
 * required key and a required cycle are answered, not refused.
 */
export async function workGraph(
  db: Kysely<LedgerSchema>,
  input: WorkGraphInput,
  revision: number,
  branch: string | null,
  now = Date.now(),
): Promise<WorkGraphResult> {
  const limit = input.limit ?? LIMITS.graphLimit.default;
  const roots = [...(input.roots ?? [])];
  const [projection, claims, sourceRows] = await Promise.all([
    projectionAt(db, revision),
    activeClaims(db, branch, now),
    db.selectFrom("sources").select(["path", "fingerprint"]).execute(),
  ]);
  const isWork = (key: string) => projection.slot(key)?.kind === "work";
  for (const root of roots) if (!isWork(root)) throw workNotFound(root);
  const { affected, selected } = graphClosure(
    projection,
    roots.length > 0 ? roots : projection.ofKind("work").map((w) => w.key),
  );
  if (selected.size > limit) {
    const fix =
      selected.size <= LIMITS.graphLimit.max
        ? `raise limit to at least ${selected.size}, or choose narrower roots`
        : `that is more than ${LIMITS.graphLimit.max}, the largest limit: choose narrower roots`;
    throw new LedgerError(
      "BudgetExceeded",
      `The work graph holds ${selected.size} work items with their required dependents and prerequisites, but limit is ${limit}; ${fix}. Nothing was left out silently: no partial graph is answered.`,
      { required: selected.size, budget: limit },
    );
  }
  const fingerprints = new Map(sourceRows.map((s) => [s.path, s.fingerprint]));
  const sourceRef = (work: EntityView): GraphSourceRef => ({
    ...work.source,
    source_fingerprint: fingerprints.get(work.source.path) ?? null,
  });
  const claimsOf = new Map<string, ActiveClaim[]>();
  for (const claim of claims)
    claimsOf.set(claim.work, [...(claimsOf.get(claim.work) ?? []), claim]);

  const keys = [...selected].sort(byKey);
  const works = keys.filter(isWork).map((key) => projection.entity(key) as EntityView);
  const nodes = works.map((work) =>
    graphNode(projection, work, claimsOf.get(work.key) ?? [], sourceRef),
  );
  const edges: GraphEdge[] = [];
  const missing = new Set<string>();
  for (const work of works) {
    const deps = [...(projection.dependencies.get(work.key) ?? [])].sort((a, b) =>
      byKey(a.target, b.target),
    );
    for (const dep of deps) {
      edges.push({
        from: work.key,
        to: dep.target,
        required: dep.required,
        source_ref: sourceRef(work),
      });
      if (dep.required && !isWork(dep.target)) missing.add(dep.target);
    }
  }
  const cycle = requiredCycle(projection, selected);
  const sources: Record<string, string> = {};
  for (const path of [...new Set(works.map((w) => w.source.path))].sort(byKey)) {
    const fingerprint = fingerprints.get(path);
    if (fingerprint !== undefined) sources[path] = fingerprint;
  }
  return {
    project_revision: revision,
    branch,
    evaluated_at: now,
    graph_fingerprint: graphFingerprint(nodes, edges, sources),
    sources,
    roots,
    affected: [...affected].sort(byKey),
    nodes,
    edges,
    missing_required: [...missing].sort(byKey),
    cycle,
    graph_valid: missing.size === 0 && cycle.length === 0,
    complete: true,
    execution_admitted: false,
    next_action: NEXT_ACTION,
  };
}

/**
 * The graph's identity: `sha256:` and the hex SHA-256 of the canonical JSON (keys sorted, no
 * whitespace) of `{nodes: [[key, status, archived, paths], ...], edges, sources}`, nodes and
 * edges in key order. What a source edit can change is in it; readiness and claims, which change
 * without one, are not, so the same graph at another time or branch has the same fingerprint.
 */
export function graphFingerprint(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  sources: Readonly<Record<string, string>>,
): string {
  const structure = {
    nodes: nodes.map((n) => [n.key, n.status, n.archived, n.paths]),
    edges,
    sources,
  };
  return `sha256:${createHash("sha256").update(canonicalJson(structure)).digest("hex")}`;
}

/** One node: the item, its readiness with the reasons (the codes awr_work_ready uses) and claims. */
function graphNode(
  projection: Projection,
  work: EntityView,
  claims: readonly ActiveClaim[],
  sourceRef: (work: EntityView) => GraphSourceRef,
): GraphNode {
  const diagnostics: ReadyDiagnostic[] = [];
  const key = work.key;
  if (work.status !== "ready") {
    diagnostics.push({
      code: "status_not_ready",
      work_item_key: key,
      detail: `status is ${work.status}`,
    });
  }
  let unmet = false;
  for (const dep of projection.dependencies.get(key) ?? []) {
    const status = projection.entity(dep.target)?.status ?? "missing";
    if (status === "completed") continue;
    if (dep.required) {
      unmet = true;
      const detail = `required dependency ${dep.target} (${status}) is not completed`;
      diagnostics.push({ code: "required_dependency_incomplete", work_item_key: key, detail });
    } else {
      const detail = `optional dependency ${dep.target} is ${status}`;
      diagnostics.push({
        code: "optional_dependency_incomplete",
        work_item_key: dep.target,
        detail,
      });
    }
  }
  for (const claim of claims) {
    const detail = `claimed by session ${claim.session_id} (${claim.agent_id})`;
    diagnostics.push({ code: "active_claim", work_item_key: key, detail });
  }
  return {
    key,
    id: work.id,
    title: work.title,
    status: work.status,
    archived: work.attributes["archived"] === true,
    ready: work.status === "ready" && !unmet && claims.length === 0,
    paths: stringsOf(work, "paths"),
    diagnostics,
    active_claims: claims.map(({ id, agent_id, session_id, expires_at }) => ({
      id,
      agent_id,
      session_id,
      expires_at,
    })),
    source_ref: sourceRef(work),
  };
}
