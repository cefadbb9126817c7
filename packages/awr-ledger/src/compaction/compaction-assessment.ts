import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import { LIMITS } from "../core/limits.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { pendingWait } from "../runtime/runtime-lookup.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";
import {
  type CompactionObservation,
  type CompactionPolicy,
  normalizePolicy,
  occupancyPercent,
} from "./compaction-observation.js";

type Db = Kysely<LedgerSchema>;

/** One instruction in four fields, as awr_work_prepare's action view gives it. */
export interface CompactionGuidance {
  when: string;
  basis: string;
  next_action: string;
  recheck: string;
}

export type CompactionState =
  | "deferred"
  | "manual_observation"
  | "handoff_candidate"
  | "continue"
  | "measurement_missing";

/** A recorded `client.compaction_observed` event, its payload read. */
export interface ObservedEvent {
  id: string;
  observation: CompactionObservation;
  policy: CompactionPolicy;
}

/** The assessment every compaction tool answers with (the writes add their receipt fields). */
export interface CompactionAssessment {
  version: 1;
  read_only: boolean;
  project_revision: number;
  project_id: string;
  /** The answer rests on runtime records alone; it says nothing about source freshness. */
  freshness_basis: "runtime_records_only";
  session: string;
  state: CompactionState;
  observation_event_id: string | null;
  post_compaction_percent: number | null;
  /** Only between two comparable observations (same model, window and trigger). */
  previous_delta_percentage_points: number | null;
  policy: CompactionPolicy;
  guidance: CompactionGuidance;
  /** AWR never changes the host's compaction or switches its session. */
  native_compaction: "unchanged";
  session_switch_performed: false;
  observation?: CompactionObservation | null;
  previous_observation?: CompactionObservation | null;
  deferral_event_id?: string | null;
  measurement_basis?: string;
}

const MEASUREMENT_BASIS =
  "host_reported_not_independently_verified; absent costs/durations remain unknown";

const card = (
  when: string,
  basis: string,
  next_action: string,
  recheck: string,
): CompactionGuidance => ({ when, basis, next_action, recheck });

function observedOf(row: Pick<EventTable, "id" | "payload">): ObservedEvent {
  const payload = JSON.parse(row.payload) as {
    observation: CompactionObservation;
    policy?: CompactionPolicy;
  };
  return { id: row.id, observation: payload.observation, policy: normalizePolicy(payload.policy) };
}

const eventsOfSession = (db: Db, session: string, type: string) =>
  db
    .selectFrom("events")
    .select(["id", "payload"])
    .where("session", "=", session)
    .where("type", "=", type)
    .orderBy("seq", "desc");

/** The session's newest observations, newest first (at most `limit`). */
export async function latestObservations(
  db: Db,
  session: string,
  limit: number,
): Promise<ObservedEvent[]> {
  const rows = await eventsOfSession(db, session, DOMAIN_EVENT_TYPES.compactionObserved)
    .limit(limit)
    .execute();
  return rows.map(observedOf);
}

/** The session's observation recorded under this compaction_id, if any. */
export async function observationById(
  db: Db,
  session: string,
  compactionId: string,
): Promise<ObservedEvent | undefined> {
  // A session sees few compactions; their payloads are read in full rather than indexed.
  const rows = await eventsOfSession(db, session, DOMAIN_EVENT_TYPES.compactionObserved).execute();
  return rows.map(observedOf).find((e) => e.observation.compaction_id === compactionId);
}

/** The deferral event of one observation in this session, if the user deferred it. */
export async function deferralOf(
  db: Db,
  session: string,
  observationEventId: string,
): Promise<string | undefined> {
  const rows = await eventsOfSession(db, session, DOMAIN_EVENT_TYPES.compactionDeferred).execute();
  const found = rows.find(
    (row) =>
      (JSON.parse(row.payload) as { observation_event_id?: string }).observation_event_id ===
      observationEventId,
  );
  return found?.id;
}

/**
 * What outranks any compaction advice: a session that is no longer active, and a question open
 * to the user. A handoff suggestion never displaces either.
 */
async function sessionGuard(db: Db, session: SessionTable): Promise<CompactionGuidance | null> {
  if (session.status !== "active") {
    return card(
      "The session is no longer active",
      "The session's current status",
      "Read its checkpoint and any successor, then continue through the resume flow",
      "A resumed session has taken in fresh required context",
    );
  }
  if ((await pendingWait(db, session.id)) !== undefined) {
    return card(
      "A question to the user is still open",
      "The session's pending wait",
      "Wait for the user's answer; keep the checkpoint and do not ask again",
      "The wait is settled with the user's actual reply",
    );
  }
  return null;
}

function adviceFor(
  latest: ObservedEvent | undefined,
  deferred: boolean,
  occupancy: number | null,
  policy: CompactionPolicy,
): { state: CompactionState; guidance: CompactionGuidance } {
  if (deferred) {
    return {
      state: "deferred",
      guidance: card(
        "The user deferred the advice on this compaction",
        "A recorded deferral; native compaction stays on",
        "Carry on with the current task and do not raise the handoff again",
        "The next completed compaction, or a change of model or window",
      ),
    };
  }
  if (latest?.observation.trigger === "manual") {
    return {
      state: "manual_observation",
      guidance: card(
        "The latest compaction was started by hand",
        "Manual compactions are kept apart from the automatic threshold policy",
        "Carry on with native compaction left on",
        "The next automatic compaction",
      ),
    };
  }
  if (occupancy === null) {
    return {
      state: "measurement_missing",
      guidance: card(
        "The host did not report the full request after compaction, or its effective window",
        "Summary size and billed token totals cannot stand in for occupancy",
        "Carry on as before; have the host report the full-request measurements it has, never guessed ones",
        "The next completed compaction with comparable host measurements",
      ),
    };
  }
  const threshold = policy.post_compaction_threshold_percent;
  const basis = `Host-reported occupancy after compaction ${occupancy.toFixed(1)}%; threshold ${threshold}% (a heuristic)`;
  if (occupancy >= threshold) {
    return {
      state: "handoff_candidate",
      guidance: card(
        "An automatic compaction left the context at or above the threshold",
        basis,
        "At a safe point, checkpoint and estimate the restart request (fixed instructions, tools, required context); if it is smaller and work remains, ask the user before opening a new session",
        "The user's decision, the next compaction or a model/window change; settle any uncertain execution before retrying",
      ),
    };
  }
  return {
    state: "continue",
    guidance: card(
      "An automatic compaction left the context below the threshold",
      basis,
      "Carry on with the current task; native compaction stays on",
      "The next completed compaction, or a change of model or window",
    ),
  };
}

/** The pieces an assessment is built from, read from the ledger or about to be recorded. */
export interface AssessmentInputs {
  /** Newest first: the latest observation and the one before it, when there are. */
  observations: readonly ObservedEvent[];
  deferralEventId: string | null;
}

/** Reads the inputs of a session's assessment as the ledger holds them now. */
export async function recordedInputs(db: Db, session: string): Promise<AssessmentInputs> {
  const observations = await latestObservations(db, session, LIMITS.compaction.compared);
  const latest = observations[0];
  const deferral = latest === undefined ? undefined : await deferralOf(db, session, latest.id);
  return { observations, deferralEventId: deferral ?? null };
}

/**
 * The compaction assessment of one session: its latest observation's occupancy against the
 * policy recorded with it, the change since the previous comparable observation, and one
 * instruction (a guard of the session comes first). `include` adds the measurements.
 */
export async function assessCompaction(
  db: Db,
  session: SessionTable,
  inputs: AssessmentInputs,
  at: { projectId: string; revision: number; include: boolean },
): Promise<CompactionAssessment> {
  const [latest, previous] = inputs.observations;
  const policy = latest?.policy ?? normalizePolicy(undefined);
  const occupancy = latest === undefined ? null : occupancyPercent(latest.observation);
  let delta: number | null = null;
  if (latest !== undefined && previous !== undefined) {
    const a = latest.observation;
    const b = previous.observation;
    const comparable =
      a.model === b.model &&
      a.context_window_tokens === b.context_window_tokens &&
      a.trigger === b.trigger;
    const before = occupancyPercent(b);
    if (comparable && occupancy !== null && before !== null) delta = occupancy - before;
  }
  const advice = adviceFor(latest, inputs.deferralEventId !== null, occupancy, policy);
  const guidance = (await sessionGuard(db, session)) ?? advice.guidance;
  if (new TextEncoder().encode(JSON.stringify(guidance)).length > LIMITS.actionGuidanceBytes) {
    throw new LedgerError(
      "InvalidInput",
      `the compaction guidance exceeds its bound of ${LIMITS.actionGuidanceBytes} bytes`,
    );
  }
  const assessment: CompactionAssessment = {
    version: 1,
    read_only: true,
    project_revision: at.revision,
    project_id: at.projectId,
    freshness_basis: "runtime_records_only",
    session: session.id,
    state: advice.state,
    observation_event_id: latest?.id ?? null,
    post_compaction_percent: occupancy,
    previous_delta_percentage_points: delta,
    policy,
    guidance,
    native_compaction: "unchanged",
    session_switch_performed: false,
  };
  if (at.include) {
    assessment.observation = latest?.observation ?? null;
    assessment.previous_observation = previous?.observation ?? null;
    assessment.deferral_event_id = inputs.deferralEventId;
    assessment.measurement_basis = MEASUREMENT_BASIS;
  }
  return assessment;
}
