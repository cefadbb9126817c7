import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import { LIMITS } from "../core/limits.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import { ulid } from "../internal/ulid.js";
import { findOperation } from "../journal/journal-store.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { resolveSession, type SessionRef } from "../runtime/runtime-lookup.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type AssessmentInputs,
  assessCompaction,
  type CompactionAssessment,
  deferralOf,
  latestObservations,
  observationById,
  recordedInputs,
} from "./compaction-assessment.js";
import {
  type CompactionPolicy,
  normalizeObservation,
  normalizePolicy,
  type ObservationInput,
  validateObservation,
} from "./compaction-observation.js";

type Db = Kysely<LedgerSchema>;

export interface CompactionGetInput extends SessionRef {
  include_observation?: boolean | undefined;
}

export interface CompactionObserveInput extends SessionRef, WriteFields {
  observation: ObservationInput;
  policy?: Partial<CompactionPolicy> | undefined;
}

export interface CompactionDeferInput extends SessionRef, WriteFields {
  observation_event_id: string;
}

/** A write's answer: the assessment after it, and which event records it. */
export interface CompactionWriteResult extends CompactionAssessment {
  recorded_event_id: string;
  /** True when this exact record already existed: nothing was written, no revision spent. */
  already_recorded: boolean;
  read_only: false;
}

/** awr_compaction_get: the latest compaction assessment of one of the caller's sessions. */
export async function compactionGet(
  ctx: RuntimeContext,
  input: CompactionGetInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<CompactionAssessment> {
  throwIfAborted(options?.signal);
  return ctx.store.read(async (db) => {
    const session = await resolveSession(db, caller, input);
    return assessCompaction(db, session, await recordedInputs(db, session.id), {
      projectId: ctx.store.projectId,
      revision: await ctx.store.currentRevision(db),
      include: input.include_observation === true,
    });
  }, options);
}

function requireWorkBound(session: SessionTable): void {
  if (session.work === null) {
    throw new LedgerError(
      "InvalidInput",
      `compaction is recorded on a session bound to a work item; session ${session.id} has none`,
      { session: session.id },
    );
  }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Whether this request_id is already in the journal: then the journal answers (its replay, or
 * its conflict), not the record lookup, so a retried request is a replay as for every write.
 */
async function journaled(db: Db, caller: RuntimeCaller, input: WriteFields): Promise<boolean> {
  return (
    input.request_id !== undefined &&
    (await findOperation(db, caller.client, input.request_id)) !== undefined
  );
}

/** An answer for a record that already exists: the assessment now, nothing written. */
async function alreadyRecorded(
  ctx: RuntimeContext,
  db: Db,
  session: SessionTable,
  recordedEventId: string,
): Promise<CompactionWriteResult & WriteReceipt> {
  const revision = await ctx.store.currentRevision(db);
  const assessment = await assessCompaction(db, session, await recordedInputs(db, session.id), {
    projectId: ctx.store.projectId,
    revision,
    include: false,
  });
  return {
    ...assessment,
    recorded_event_id: recordedEventId,
    already_recorded: true,
    read_only: false,
  };
}

/**
 * The answer of a write whose record already exists, found by `recordedEventOf` in the caller's
 * session; undefined when the request_id is journaled (the journal answers then) or there is no
 * such record yet.
 */
async function replayOfRecorded(
  ctx: RuntimeContext,
  input: SessionRef & WriteFields,
  caller: RuntimeCaller,
  options: CallOptions | undefined,
  recordedEventOf: (db: Db, session: SessionTable) => Promise<string | undefined>,
): Promise<(CompactionWriteResult & WriteReceipt) | undefined> {
  return ctx.store.read(async (db) => {
    if (await journaled(db, caller, input)) return undefined;
    const session = await resolveSession(db, caller, input);
    const recorded = await recordedEventOf(db, session);
    return recorded === undefined ? undefined : alreadyRecorded(ctx, db, session, recorded);
  }, options);
}

/** A new compaction record of the session: the assessment after it, and its low-importance event. */
function newRecord(
  session: SessionTable,
  eventId: string,
  assessment: CompactionAssessment,
  event: { type: string; summary: string; payload: Record<string, unknown> },
) {
  return {
    result: {
      ...assessment,
      recorded_event_id: eventId,
      already_recorded: false,
      read_only: false as const,
    },
    event: {
      id: eventId,
      type: event.type,
      work: session.work,
      session: session.id,
      branch: session.branch,
      importance: "low" as const,
      summary: event.summary,
      payload: event.payload,
    },
  };
}

/**
 * awr_compaction_observe: records one completed native compaction from the host's telemetry as
 * a `client.compaction_observed` event. The session and compaction_id identify it: the same
 * observation again (whatever the revision) is answered as already recorded and writes nothing;
 * other content or policy under that id is SourceConflict, and so is a sequence that does not
 * rise or a completion time that goes back.
 */
export async function compactionObserve(
  ctx: RuntimeContext,
  input: CompactionObserveInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<CompactionWriteResult & WriteReceipt> {
  throwIfAborted(options?.signal);
  const observation = normalizeObservation(input.observation);
  const policy = normalizePolicy(input.policy);
  validateObservation(observation, policy, ctx.now());
  const payload = { observation, policy };

  const existing = async (db: Db, session: SessionTable) => {
    const found = await observationById(db, session.id, observation.compaction_id);
    if (
      found !== undefined &&
      !sameJson({ observation: found.observation, policy: found.policy }, payload)
    ) {
      throw new LedgerError(
        "SourceConflict",
        `compaction_id "${observation.compaction_id}" is already recorded in this session with other measurements or policy; send each compaction under its own id`,
        { session: session.id, recorded_event_id: found.id },
      );
    }
    return found;
  };

  const replay = await replayOfRecorded(ctx, input, caller, options, async (db, session) => {
    requireWorkBound(session);
    return (await existing(db, session))?.id;
  });
  if (replay !== undefined) return replay;

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check: async (db) => {
        const session = await resolveSession(db, caller, input);
        requireWorkBound(session);
        if ((await existing(db, session)) !== undefined) {
          throw new LedgerError(
            "SourceConflict",
            `compaction_id "${observation.compaction_id}" was recorded meanwhile; read it with awr_compaction_get`,
            { session: session.id },
          );
        }
        const [latest] = await latestObservations(db, session.id, 1);
        if (
          latest !== undefined &&
          (observation.sequence <= latest.observation.sequence ||
            observation.observed_at < latest.observation.observed_at)
        ) {
          throw new LedgerError(
            "SourceConflict",
            `out-of-order compaction: sequence must rise above ${latest.observation.sequence} and observed_at must not go back; the latest observation is kept`,
            {
              session: session.id,
              latest_event_id: latest.id,
              latest_sequence: latest.observation.sequence,
            },
          );
        }
        return { session, previous: latest };
      },
      apply: async (unit, { session, previous }) => {
        const eventId = ulid();
        const inputs: AssessmentInputs = {
          observations: [
            { id: eventId, observation, policy },
            ...(previous === undefined ? [] : [previous]),
          ],
          deferralEventId: null,
        };
        const assessment = await assessCompaction(unit.tx, session, inputs, {
          projectId: ctx.store.projectId,
          revision: unit.revision,
          include: false,
        });
        return newRecord(session, eventId, assessment, {
          type: DOMAIN_EVENT_TYPES.compactionObserved,
          summary: "Recorded a completed native compaction; no session was switched",
          payload,
        });
      },
    },
    options,
  );
}

/**
 * awr_compaction_defer: records the user's "not now" for the latest observation of the session.
 * It holds until the next observation; deferring the same observation again writes nothing.
 */
export async function compactionDefer(
  ctx: RuntimeContext,
  input: CompactionDeferInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<CompactionWriteResult & WriteReceipt> {
  throwIfAborted(options?.signal);
  const target = input.observation_event_id;
  const replay = await replayOfRecorded(ctx, input, caller, options, (db, session) =>
    deferralOf(db, session.id, target),
  );
  if (replay !== undefined) return replay;

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check: async (db) => {
        const session = await resolveSession(db, caller, input);
        const observations = await latestObservations(db, session.id, LIMITS.compaction.compared);
        if (observations[0]?.id !== target) {
          throw new LedgerError(
            "SourceConflict",
            `only the latest observation of session ${session.id} can be deferred, and ${target} is not it; read it with awr_compaction_get`,
            { session: session.id, observation_event_id: target },
          );
        }
        return { session, observations };
      },
      apply: async (unit, { session, observations }) => {
        const eventId = ulid();
        const assessment = await assessCompaction(
          unit.tx,
          session,
          { observations, deferralEventId: eventId },
          { projectId: ctx.store.projectId, revision: unit.revision, include: false },
        );
        return newRecord(session, eventId, assessment, {
          type: DOMAIN_EVENT_TYPES.compactionDeferred,
          summary: "Deferred the handoff advice until the next compaction is observed",
          payload: { observation_event_id: target },
        });
      },
    },
    options,
  );
}
