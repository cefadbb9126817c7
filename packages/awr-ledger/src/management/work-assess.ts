import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import { canonicalJson } from "../journal/fingerprint.js";
import { ENTITY_COLUMNS } from "../read/entity-row.js";
import {
  acceptanceOf,
  type EntityView,
  type SourceRef,
  stringOf,
  stringsOf,
  workNotFound,
} from "../read/entity-view.js";
import { Projection } from "../read/projection.js";
import { projectionAt } from "../read/projection-cache.js";
import { branchIdOf, resolveBranch } from "../runtime/branch-select.js";
import { fingerprintBytes } from "../sources/fingerprint.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";
import {
  decideManagement,
  type ManagementDecision,
  type ManagementObservation,
  type ManagementReason,
} from "./management-decision.js";

type Db = Kysely<LedgerSchema>;

export interface WorkAssessInput {
  work: string;
  /** Omitted or null: the selected default; else a branch name or id, or "main". */
  branch?: string | null | undefined;
}

export interface WorkAssessment {
  version: 1;
  work: string;
  work_id: string;
  /** The revision that last indexed the work item. */
  work_revision: number;
  source_ref: SourceRef;
  branch_id: string | null;
  /** What the work asks for (not its progress): a record is bound to it. */
  contract_fingerprint: string;
  decision: ManagementDecision;
  observation: ManagementObservation | null;
  observation_basis: "host_assertion_not_independently_verified";
  observer: string | null;
  /** The management.assessed event whose observation this assessment uses. */
  observation_event: string | null;
  /** The latest management.assessed event of the work on this branch. */
  previous_record: string | null;
  record_required: boolean;
  admission_gaps: string[];
  next_action: string;
  scope: string;
}

const SCOPE =
  "Management requirements only. Readiness, required goals and rules, claims and completion are still enforced by their own operations.";

/** The newest event of `type` on the work item and branch. */
export async function latestWorkEvent(
  db: Db,
  work: string,
  branch: string | null,
  type: string,
): Promise<Pick<EventTable, "id" | "payload"> | undefined> {
  let query = db
    .selectFrom("events")
    .select(["id", "payload"])
    .where("type", "=", type)
    .where("work", "=", work);
  query = branch === null ? query.where("branch", "is", null) : query.where("branch", "=", branch);
  return query.orderBy("seq", "desc").limit(1).executeTakeFirst();
}

interface StoredReceipt {
  request_key?: unknown;
  input?: { observation?: ManagementObservation };
  observer?: unknown;
  assessment?: { contract_fingerprint?: unknown; decision?: { mode?: unknown } };
}

export const parseReceipt = (payload: string): StoredReceipt =>
  JSON.parse(payload) as StoredReceipt;

/** Whether the dependency graph leads from `key` back to itself. */
function inCycle(projection: Projection, key: string): boolean {
  const seen = new Set<string>();
  const stack = (projection.dependencies.get(key) ?? []).map((d) => d.target);
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (next === key) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const dep of projection.dependencies.get(next) ?? []) stack.push(dep.target);
  }
  return false;
}

/** Blank, repeated or missing acceptance criteria leave completion undefined. */
export function acceptanceAmbiguous(work: EntityView): boolean {
  const criteria = acceptanceOf(work);
  const texts = criteria.map((c) => c.text.trim());
  return (
    criteria.length === 0 || texts.some((t) => t === "") || new Set(texts).size !== texts.length
  );
}

function goalsOf(work: EntityView): string[] {
  return work.attributes["goals"] === undefined
    ? [stringOf(work, "goal")].filter((g): g is string => g !== null)
    : stringsOf(work, "goals");
}

/**
 * The work's contract: its identity, intent, acceptance, scope, goals and dependencies. Progress,
 * next actions, evidence and unrelated edits leave it as it is.
 */
function contractFingerprint(work: EntityView, projection: Projection): string {
  const dependencies = (projection.dependencies.get(work.key) ?? []).map((d) => ({
    key: d.target,
    required: d.required,
  }));
  return fingerprintBytes(
    canonicalJson({
      id: work.id,
      title: work.title,
      summary: work.summary,
      kind: stringOf(work, "kind"),
      acceptance: acceptanceOf(work),
      paths: stringsOf(work, "paths"),
      tags: stringsOf(work, "tags"),
      goals: goalsOf(work).map((key) => ({ key, required: true })),
      dependencies,
      ordinary_work_policy: null,
    }),
  );
}

/**
 * The projection as `db` holds it, read in full without the shared cache: what a write's own
 * transaction sees (the cache reads in a snapshot transaction of its own, which a write
 * transaction cannot open).
 */
export async function projectionIn(db: Db): Promise<Projection> {
  const entities = await db
    .selectFrom("entities")
    .select(ENTITY_COLUMNS)
    .orderBy("source_path")
    .orderBy("ordinal")
    .execute();
  const dependencies = await db
    .selectFrom("dependencies")
    .select(["work_key", "depends_on", "required"])
    .orderBy("work_key")
    .orderBy("depends_on")
    .execute();
  return Projection.fromRows(0, entities, dependencies);
}

/** Runtime history that calls for continuous management, by event type. */
const HISTORY_REASONS = [
  [DOMAIN_EVENT_TYPES.waitCreated, "persistent_wait"],
  [DOMAIN_EVENT_TYPES.workHandoff, "work_handoff"],
  [DOMAIN_EVENT_TYPES.sessionResumed, "cross_session_resume"],
] as const;

/**
 * The management assessment of one work item on one branch. With `provided` (awr_work_manage)
 * the host's new observation is used; otherwise the one of the latest record, if that record
 * was made for the work's current contract.
 */
export async function assessWork(
  db: Db,
  projection: Projection,
  key: string,
  branch: string | null,
  provided?: { observation: ManagementObservation; observer: string },
): Promise<WorkAssessment> {
  const work = projection.entity(key);
  if (work?.kind !== "work") throw workNotFound(key);
  const fingerprint = contractFingerprint(work, projection);
  const previousRow = await latestWorkEvent(
    db,
    work.key,
    branch,
    DOMAIN_EVENT_TYPES.managementAssessed,
  );
  const previous = previousRow === undefined ? undefined : parseReceipt(previousRow.payload);
  const priorContinuous = previous?.assessment?.decision?.mode === "continuous";
  const matching =
    previous !== undefined && previous.assessment?.contract_fingerprint === fingerprint;
  const observation =
    provided?.observation ?? (matching ? (previous?.input?.observation ?? null) : null);

  const reasons: ManagementReason[] = [];
  const unresolved = (projection.dependencies.get(work.key) ?? []).some(
    (d) => projection.entity(d.target)?.status !== "completed",
  );
  if (unresolved || inCycle(projection, work.key)) {
    reasons.push({ code: "unresolved_dependencies", basis: "source_projection", reference: key });
  }
  if (previous !== undefined && !matching) {
    reasons.push({
      code: "work_contract_changed",
      basis: "source_projection",
      reference: fingerprint,
    });
  }
  for (const [type, code] of HISTORY_REASONS) {
    const event = await latestWorkEvent(db, work.key, branch, type);
    if (event !== undefined) {
      reasons.push({ code, basis: "runtime_history", reference: event.id });
    }
  }
  // This runtime runs no executions of its own, so none can be awaiting a result query.
  const decision = decideManagement(observation, reasons, priorContinuous);
  const gaps: string[] = [];
  if (acceptanceAmbiguous(work)) gaps.push("source_acceptance_missing_or_ambiguous");
  if (projection.ofKind("goal").length === 0) gaps.push("goal_context_missing");
  const recordRequired =
    previous === undefined || previous.assessment?.decision?.mode !== decision.mode || !matching;
  const storedObserver =
    matching && typeof previous?.observer === "string" ? previous.observer : null;
  return {
    version: 1,
    work: key,
    work_id: work.id,
    work_revision: projection.revisions.get(work.key) ?? 0,
    source_ref: work.source,
    branch_id: branch,
    contract_fingerprint: fingerprint,
    decision,
    observation,
    observation_basis: "host_assertion_not_independently_verified",
    observer: provided?.observer ?? storedObserver,
    observation_event: matching ? (previousRow?.id ?? null) : null,
    previous_record: previousRow?.id ?? null,
    record_required: recordRequired,
    admission_gaps: gaps,
    next_action:
      gaps.length > 0
        ? "repair_required_context_before_execution"
        : recordRequired
          ? "record_current_assessment_with_explicit_host_observations"
          : "follow_required_actions_and_existing_workflow",
    scope: SCOPE,
  };
}

/** awr_work_assess: what managing the work requires; reads only, changes nothing. */
export async function workAssess(
  db: Db,
  input: WorkAssessInput,
  revision: number,
): Promise<WorkAssessment> {
  const branch = branchIdOf(await resolveBranch(db, input.branch));
  return assessWork(db, await projectionAt(db, revision), input.work, branch);
}
