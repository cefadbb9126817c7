import type { Kysely } from "kysely";
import { claimLapsed } from "../claims/claim-in-force.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type BranchRow, branchProblems, inspectBranches } from "./doctor-branches.js";
import { type DoctorFinding, finding, type RepairAction } from "./doctor-finding.js";

/**
 * The runtime findings of `awr doctor`, read from one snapshot of the ledger: the codes,
 * severities, object kinds and messages of the runtime inspection
 * (docs/design/work-branches.md, "awr doctor", the checks table; docs/compatibility/storage.md).
 * Reading only; the suggested repair of a finding is one `awr doctor repair` action the
 * operator may choose to run.
 */

/** Work statuses a session or an active claim should not be bound to. */
const UNUSABLE_WORK_STATUSES: ReadonlySet<string> = new Set(["completed", "cancelled", "unknown"]);

export interface RuntimeInspection {
  project_revision: number;
  findings: DoctorFinding[];
}

type Db = Kysely<LedgerSchema>;

async function workStatuses(db: Db): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom("entities")
    .select(["key", "status"])
    .where("kind", "=", "work")
    .execute();
  return new Map(rows.map((r) => [r.key, r.status]));
}

interface SessionRow {
  id: string;
  work: string | null;
  branch: string | null;
  client: string;
  status: string;
  last_checkpoint: string | null;
}

function inspectSessions(
  sessions: readonly SessionRow[],
  work: ReadonlyMap<string, string>,
  branches: ReadonlyMap<string, BranchRow>,
  revision: number,
): DoctorFinding[] {
  const found: DoctorFinding[] = [];
  for (const session of sessions) {
    if (session.status !== "active") continue;
    const problems: string[] = [];
    const status = session.work === null ? undefined : work.get(session.work);
    if (session.work !== null && status === undefined) problems.push("bound work item is missing");
    if (status !== undefined && UNUSABLE_WORK_STATUSES.has(status)) {
      problems.push(`bound work item is terminal or unusable (${status})`);
    }
    if (session.branch !== null) {
      const branch = branches.get(session.branch);
      if (branch === undefined) problems.push("bound branch is missing");
      else {
        const bad = branchProblems(branch, branches, revision);
        if (bad.closed !== undefined) problems.push(`bound branch is ${bad.closed}`);
        if (bad.fork) problems.push("bound branch forks from a future project revision");
        if (bad.parent) problems.push("bound branch has an invalid parent reference");
      }
    }
    const repair: RepairAction = { kind: "interrupt_session", session_id: session.id };
    found.push(
      problems.length === 0
        ? finding(
            "active_session",
            "info",
            "session",
            session.id,
            "Session is active in the database; process liveness was not inspected, so death cannot be inferred",
            repair,
          )
        : finding(
            "orphan_session",
            "error",
            "session",
            session.id,
            `Active session has inconsistent bindings: ${problems.join("; ")}`,
            repair,
          ),
    );
  }
  return found;
}

async function inspectClaims(
  db: Db,
  sessions: ReadonlyMap<string, SessionRow>,
  work: ReadonlyMap<string, string>,
  branches: ReadonlyMap<string, BranchRow>,
  checkedAt: number,
): Promise<DoctorFinding[]> {
  const claims = await db
    .selectFrom("claims")
    .select(["id", "work", "session", "client", "branch", "status", "expires_at", "ended_at"])
    .orderBy("id")
    .execute();
  const found: DoctorFinding[] = [];
  for (const claim of claims) {
    const active = claim.status === "active";
    if (claim.ended_at === null && claimLapsed(claim, checkedAt)) {
      found.push(
        finding(
          "expired_claim",
          "warning",
          "claim",
          claim.id,
          `Active claim expired at ${Number(claim.expires_at)}; no automatic repair was applied`,
          { kind: "expire_claim", claim_id: claim.id },
        ),
      );
    }
    const problems: string[] = [];
    const owner = sessions.get(claim.session);
    if (owner === undefined) {
      problems.push(`owning session ${claim.session} is missing`);
    } else {
      if (owner.work !== claim.work) problems.push("work item differs from the owning session");
      if (owner.client !== claim.client) problems.push("client differs from the owning session");
      if (owner.branch !== claim.branch) problems.push("branch differs from the owning session");
      if (active && owner.status !== "active") {
        problems.push("active claim belongs to a non-active session");
      }
    }
    const status = work.get(claim.work);
    if (status === undefined) problems.push("work item is missing");
    if (active && status !== undefined && UNUSABLE_WORK_STATUSES.has(status)) {
      problems.push("work item is terminal or unusable");
    }
    const branch = claim.branch === null ? undefined : branches.get(claim.branch);
    if (claim.branch !== null && branch === undefined) problems.push("branch is missing");
    if (active && branch !== undefined && branch.status !== "active") {
      problems.push("branch is not active");
    }
    if (active && claim.ended_at !== null) problems.push("active claim has a release timestamp");
    if (problems.length > 0) {
      found.push(
        finding(
          "invalid_claim",
          "error",
          "claim",
          claim.id,
          `Claim has inconsistent bindings or state: ${problems.join("; ")}`,
        ),
      );
    }
  }
  return found;
}

/** A session's last_checkpoint must be its own newest checkpoint. */
async function inspectCheckpointPointers(
  db: Db,
  sessions: readonly SessionRow[],
): Promise<DoctorFinding[]> {
  const pointing = sessions.filter((s) => s.last_checkpoint !== null);
  if (pointing.length === 0) return [];
  const checkpoints = await db
    .selectFrom("checkpoints")
    .select(["id", "session", "revision", "created_at"])
    .execute();
  const byId = new Map(checkpoints.map((c) => [c.id, c]));
  const newest = new Map<string, (typeof checkpoints)[number]>();
  const later = (a: (typeof checkpoints)[number], b: (typeof checkpoints)[number]) =>
    Number(a.revision) !== Number(b.revision)
      ? Number(a.revision) > Number(b.revision)
      : a.created_at !== b.created_at
        ? a.created_at > b.created_at
        : a.id > b.id;
  for (const checkpoint of checkpoints) {
    const seen = newest.get(checkpoint.session);
    if (seen === undefined || later(checkpoint, seen)) newest.set(checkpoint.session, checkpoint);
  }
  const found: DoctorFinding[] = [];
  for (const session of pointing) {
    const pointer = session.last_checkpoint as string;
    const target = byId.get(pointer);
    const message =
      target === undefined
        ? "Session last_checkpoint_id points to a missing checkpoint"
        : target.session !== session.id
          ? "Session last_checkpoint_id points to another session's checkpoint"
          : newest.get(session.id)?.id !== target.id
            ? "Session last_checkpoint_id does not point to its newest checkpoint"
            : undefined;
    if (message !== undefined) {
      found.push(
        finding(
          "invalid_checkpoint_pointer",
          "error",
          "session",
          session.id,
          `${message}: ${pointer}`,
        ),
      );
    }
  }
  return found;
}

/** Required dependencies whose target, origin or source is not indexed. */
async function inspectDependencies(
  db: Db,
  work: ReadonlyMap<string, string>,
): Promise<DoctorFinding[]> {
  const [edges, sources] = await Promise.all([
    db
      .selectFrom("dependencies")
      .select(["work_key", "depends_on", "source_path"])
      .where("required", "=", 1)
      .orderBy("work_key")
      .orderBy("depends_on")
      .execute(),
    db.selectFrom("sources").select("path").execute(),
  ]);
  const indexed = new Set(sources.map((s) => s.path));
  const found: DoctorFinding[] = [];
  for (const edge of edges) {
    const problems: string[] = [];
    if (!indexed.has(edge.source_path)) problems.push("edge source is missing or inactive");
    if (!work.has(edge.work_key)) {
      problems.push(`origin work_item:${edge.work_key} is missing or retired`);
    }
    const targetMissing = !work.has(edge.depends_on);
    if (targetMissing) problems.push(`target work_item:${edge.depends_on} is missing or retired`);
    if (problems.length === 0) continue;
    found.push(
      finding(
        targetMissing ? "missing_dependency" : "dangling_edge",
        "error",
        "edge",
        `${edge.work_key} depends_on ${edge.depends_on}`,
        problems.join("; "),
      ),
    );
  }
  return found;
}

/** Journal entries still `started`: their outcome is unknown until recovered. */
async function inspectOperations(db: Db): Promise<DoctorFinding[]> {
  const started = await db
    .selectFrom("operations")
    .select(["id", "tool", "request_id", "client", "started_revision"])
    .where("status", "=", "started")
    .orderBy("id")
    .execute();
  return started.map((op) =>
    finding(
      "unfinished_operation",
      "warning",
      "operation",
      op.id,
      `Request ${op.request_id} of client ${op.client} (${op.tool}) started at revision ${op.started_revision ?? "unknown"} and has no recorded outcome; it may still be in flight. Inspect it with awr operation get ${op.request_id}, then awr operation recover if its writer is gone.`,
    ),
  );
}

/**
 * Every runtime finding of `projectId` in `db` (inside one read snapshot), or undefined when the
 * database holds no project state for it.
 */
export async function inspectRuntime(
  db: Db,
  projectId: string,
  checkedAt: number,
): Promise<RuntimeInspection | undefined> {
  const state = await db
    .selectFrom("project_state")
    .select(["revision", "current_branch_id"])
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  if (state === undefined) return undefined;
  const revision = Number(state.revision);
  const work = await workStatuses(db);
  const branchRows = await db
    .selectFrom("branches")
    .select(["id", "status", "fork_revision", "parent_branch_id"])
    .execute();
  const branches = new Map(branchRows.map((b) => [b.id, b]));
  const sessions = await db
    .selectFrom("sessions")
    .select(["id", "work", "branch", "client", "status", "last_checkpoint"])
    .orderBy("id")
    .execute();
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const findings = [
    ...inspectSessions(sessions, work, branches, revision),
    ...(await inspectClaims(db, byId, work, branches, checkedAt)),
    ...inspectBranches(branches, state.current_branch_id, revision),
    ...(await inspectCheckpointPointers(db, sessions)),
    ...(await inspectDependencies(db, work)),
    ...(await inspectOperations(db)),
  ];
  return { project_revision: revision, findings };
}
