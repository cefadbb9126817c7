import type { Kysely } from "kysely";
import {
  assessCompaction,
  type CompactionGuidance,
  recordedInputs,
} from "../compaction/compaction-assessment.js";
import { type CompileContextScope, compileContext } from "../context/compile-context.js";
import type { ContextCompileResult } from "../context/context-types.js";
import type { ContinuityWait } from "../context/continuity.js";
import type { RuntimeCaller } from "../core/runtime-context.js";
import { type WorkAssessment, workAssess } from "../management/work-assess.js";
import type { SourceRef } from "../read/entity-view.js";
import type { ReadyBrief, ReadyDiagnostic } from "../read/work-brief.js";
import { workReadiness } from "../read/work-ready.js";
import { resolveSession } from "../runtime/runtime-lookup.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { ResponseViewName } from "../work/response-view.js";

/** awr_work_prepare's arguments, as the catalog admits them. */
export interface WorkPrepareInput {
  work: string;
  session?: string | undefined;
  branch?: string | null | undefined;
  goals?: string[] | undefined;
  source_sha?: string | undefined;
  budget?: number | undefined;
  response_view?: ResponseViewName | undefined;
}

/** What the caller should do first, as a code (the most pressing condition wins). */
export type PrepareNextAction =
  | "resolve_persistent_wait_before_resuming"
  | "resolve_required_context_gaps"
  | "inspect_readiness_and_current_claim"
  | "consume_context_then_start_or_resume_session";

/**
 * awr_work_prepare's full answer: the work item's identity and readiness beside its L1 context
 * packet, and the session's open waits. Preparing reads only: `context_consumed` and
 * `completion_claimed` are always false (nothing is claimed, started, consumed or completed).
 */
export interface PreparedWork {
  version: 1;
  stage: "prepared";
  work: {
    id: string;
    external_key: string;
    status: string;
    revision: number | null;
    source_ref: SourceRef;
    next_action: string | null;
  };
  /** Eligible for a new claim now (awr_work_ready's meaning). */
  ready: boolean;
  diagnostics: ReadyDiagnostic[];
  active_claims: ReadyBrief["active_claims"];
  /** The awr_context_compile answer for this work (and session, when one is given). */
  context: ContextCompileResult;
  /** The awr_work_assess answer for this work: how to manage it, and its contract fingerprint. */
  management: WorkAssessment;
  context_consumed: false;
  completion_claimed: false;
  /**
   * The given session's own waits; `waiting_user` while one of them is pending. The action view
   * adds the session's latest compaction assessment, when there is one.
   */
  continuity: {
    state: "waiting_user" | "available";
    waits: ContinuityWait[];
    compaction?: {
      state: string;
      observation_event_id: string;
      post_compaction_percent: number | null;
    };
  };
  next_action: PrepareNextAction;
}

/** The session behind a preparation, as the action view's guard reads it. */
export interface PreparedSession {
  id: string;
  status: string;
  /** Its latest compaction assessment, when the host reported one (awr_compaction_get). */
  compaction: PreparedCompaction | null;
}

/** What the action view takes from a session's compaction assessment. */
export interface PreparedCompaction {
  state: string;
  observation_event_id: string;
  post_compaction_percent: number | null;
  guidance: CompactionGuidance;
}

/**
 * Prepares one work item: compiles its context as awr_context_compile would (detached when no
 * session is given; an explicit branch compiles its delta since the fork), then reads its
 * readiness on the branch the packet was compiled for. Writes nothing and claims nothing.
 */
export async function prepareWork(
  db: Kysely<LedgerSchema>,
  input: WorkPrepareInput,
  scope: CompileContextScope,
  caller: RuntimeCaller,
): Promise<{ prepared: PreparedWork; session: PreparedSession | null }> {
  const session = input.session === undefined ? null : await resolveSession(db, caller, input);
  const context = await compileContext(
    db,
    {
      work: input.work,
      session: input.session,
      detached: input.session === undefined,
      goals: input.goals,
      budget: input.budget,
      ...(input.branch === undefined ? {} : { branch: input.branch }),
    },
    scope,
  );
  const readiness = await workReadiness(
    db,
    scope.revision,
    context.completeness.branch_id,
    input.work,
  );
  const management = await workAssess(
    db,
    { work: input.work, ...(input.branch === undefined ? {} : { branch: input.branch }) },
    scope.revision,
  );
  const assessed =
    session === null
      ? null
      : await assessCompaction(db, session, await recordedInputs(db, session.id), {
          projectId: scope.projectId,
          revision: scope.revision,
          include: false,
        });
  const compaction: PreparedCompaction | null =
    assessed === null || assessed.observation_event_id === null
      ? null
      : {
          state: assessed.state,
          observation_event_id: assessed.observation_event_id,
          post_compaction_percent: assessed.post_compaction_percent,
          guidance: assessed.guidance,
        };
  const waits = context.continuity.waits.filter((w) => w.session_id === session?.id);
  const waiting = waits.some((w) => w.status === "waiting_user");
  const complete = context.completeness.complete;
  return {
    session: session === null ? null : { id: session.id, status: session.status, compaction },
    prepared: {
      version: 1,
      stage: "prepared",
      work: {
        id: readiness.id,
        external_key: readiness.external_key,
        status: readiness.status,
        revision: readiness.revision,
        source_ref: readiness.source,
        next_action: readiness.next_action,
      },
      ready: readiness.ready,
      diagnostics: readiness.diagnostics,
      active_claims: readiness.active_claims,
      context,
      management,
      context_consumed: false,
      completion_claimed: false,
      continuity: { state: waiting ? "waiting_user" : "available", waits },
      next_action: waiting
        ? "resolve_persistent_wait_before_resuming"
        : !complete
          ? "resolve_required_context_gaps"
          : !readiness.ready
            ? "inspect_readiness_and_current_claim"
            : "consume_context_then_start_or_resume_session",
    },
  };
}
