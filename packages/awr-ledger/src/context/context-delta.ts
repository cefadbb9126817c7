import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES, JOURNAL_RECEIPT_TYPES } from "../core/event-types.js";
import { LIMITS } from "../core/limits.js";
import type { RuntimeCaller } from "../core/runtime-context.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import type { EntityChange } from "../projection/apply-reindex.js";
import { type EventBrief, eventBrief } from "../read/event-history.js";
import { eventSeenBy, ownCheckpoint } from "../runtime/conversation-privacy.js";
import { resolveSession } from "../runtime/runtime-lookup.js";
import { recoveryCheckpointId, recoveryRevision } from "../sessions/recovery-checkpoint.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";
import { activeSession } from "./context-selection.js";

export interface ContextDeltaInput {
  session?: string | undefined;
  work?: string | undefined;
  checkpoint?: string | undefined;
  after_revision?: number | undefined;
  /** Whose delta: without a session, that agent's one active session. */
  agent?: string | undefined;
  /** Events listed per kind (default 12). */
  event_limit?: number | undefined;
  /** Changed entities listed per source change (1..200, default 24). */
  entity_limit?: number | undefined;
}

/** Where a delta starts, and why there. */
export type DeltaOrigin =
  | "checkpoint"
  | "after_revision"
  | "session_checkpoint"
  | "inherited_checkpoint"
  | "session_start"
  | "project_start";

export interface SourceChange {
  event_id: string;
  project_revision: number;
  source: string;
  /** The first entity_limit of them; the count and the omitted rest are said. */
  changed_entities: EntityChange[];
  changed_entity_count: number;
  omitted_entities: number;
}

export interface ContextDelta {
  project_revision: number;
  session_id: string | null;
  work_item_key: string | null;
  baseline: { origin: DeltaOrigin; checkpoint_id: string | null };
  delta: {
    after_revision: number;
    through_revision: number;
    events: {
      /** The work item's events after the baseline, oldest first. */
      work_events: EventBrief[];
      /** The session's own events after the baseline (another work item's too), oldest first. */
      session_events: EventBrief[];
      /** Every source change projected after the baseline: what changed, by entity. */
      source_changes: SourceChange[];
    };
    /** True when a list was cut at event_limit (page the rest with awr event history). */
    truncated: boolean;
  };
}

async function baselineOf(
  db: Kysely<LedgerSchema>,
  input: ContextDeltaInput,
  caller: RuntimeCaller,
  session: SessionTable | null,
): Promise<{ after: number; origin: DeltaOrigin; checkpoint: string | null }> {
  const revisionOf = async (checkpoint: string) => {
    const row = await ownCheckpoint(db, caller, checkpoint);
    return Number(row.revision);
  };
  if (input.checkpoint !== undefined) {
    return {
      after: await revisionOf(input.checkpoint),
      origin: "checkpoint",
      checkpoint: input.checkpoint,
    };
  }
  if (input.after_revision !== undefined) {
    return { after: input.after_revision, origin: "after_revision", checkpoint: null };
  }
  if (session === null) return { after: 0, origin: "project_start", checkpoint: null };
  if (session.last_checkpoint !== null) {
    const own = session.last_checkpoint;
    return { after: await revisionOf(own), origin: "session_checkpoint", checkpoint: own };
  }
  const inherited = await recoveryCheckpointId(db, session);
  if (inherited !== null) {
    return {
      after: await revisionOf(inherited),
      origin: "inherited_checkpoint",
      checkpoint: inherited,
    };
  }
  return { after: await recoveryRevision(db, session), origin: "session_start", checkpoint: null };
}

/**
 * The delta's session: the one given (of `agent`, when both are given), else with `agent` that
 * agent's one active session of the caller (of the work, when given), else none.
 */
async function sessionOf(
  db: Kysely<LedgerSchema>,
  input: ContextDeltaInput,
  caller: RuntimeCaller,
): Promise<SessionTable | null> {
  if (input.session !== undefined) {
    const session = await resolveSession(db, caller, { session: input.session });
    if (input.agent !== undefined && input.agent !== session.agent) {
      throw new LedgerError(
        "InvalidInput",
        `session ${session.id} belongs to agent ${session.agent}, not ${input.agent}: give the matching agent or drop it.`,
        { session: session.id, agent: input.agent },
      );
    }
    return session;
  }
  if (input.agent === undefined) return null;
  const active = await activeSession(db, caller.client, { work: input.work, agent: input.agent });
  if (active === null && input.work === undefined) {
    throw new LedgerError(
      "InvalidInput",
      `agent ${input.agent} has no active session of yours; give --work or --session.`,
      { agent: input.agent },
    );
  }
  return active;
}

/**
 * `awr context delta`: what changed after a baseline, as references and summaries (payloads
 * stay behind `awr event show ID --full`). The baseline is an explicit checkpoint or revision,
 * else the session's own checkpoint, the checkpoint it inherited, or the revision it recovers
 * from (a resumed session without a checkpoint: its predecessor's start). Events of other work
 * items are left out unless the session wrote them, however important they are.
 */
export async function contextDelta(
  db: Kysely<LedgerSchema>,
  input: ContextDeltaInput,
  caller: RuntimeCaller,
  revision: number,
): Promise<ContextDelta> {
  if (input.checkpoint !== undefined && input.after_revision !== undefined) {
    throw new LedgerError(
      "InvalidInput",
      "Pass --checkpoint or --after-revision, not both: each names the baseline of a delta.",
    );
  }
  if (input.agent !== undefined && input.agent.trim() === "") {
    throw new LedgerError("InvalidInput", "agent must not be blank: give the agent's name.", {
      field: "agent",
    });
  }
  const session = await sessionOf(db, input, caller);
  const work = input.work ?? session?.work ?? null;
  if (work === null) {
    throw new LedgerError(
      "InvalidInput",
      "context delta needs --session or --work: the delta is of one work item's context.",
    );
  }
  const { after, origin, checkpoint } = await baselineOf(db, input, caller, session);
  const limit = input.event_limit ?? LIMITS.deltaEventLimit.default;
  const entityLimit = input.entity_limit ?? LIMITS.entityLimit.default;
  const listed = (rows: readonly EventTable[]) =>
    rows.slice(0, limit).map((row) => eventBrief(eventSeenBy(row, caller.client)));
  const windowEvents = () =>
    db
      .selectFrom("events")
      .selectAll()
      .where("revision", ">", after)
      .where("revision", "<=", revision)
      .where("type", "not in", [...JOURNAL_RECEIPT_TYPES])
      .orderBy("seq");
  const [workRows, sessionRows, projected] = await Promise.all([
    windowEvents()
      .where("work", "=", work)
      .limit(limit + 1)
      .execute(),
    session === null
      ? Promise.resolve([])
      : windowEvents()
          .where("session", "=", session.id)
          .limit(limit + 1)
          .execute(),
    windowEvents()
      .where("type", "=", DOMAIN_EVENT_TYPES.sourceProjected)
      .limit(limit + 1)
      .execute(),
  ]);
  return {
    project_revision: revision,
    session_id: session?.id ?? null,
    work_item_key: work,
    baseline: { origin, checkpoint_id: checkpoint },
    delta: {
      after_revision: after,
      through_revision: revision,
      events: {
        work_events: listed(workRows),
        session_events: listed(sessionRows),
        source_changes: projected.slice(0, limit).map((row) => {
          const payload = JSON.parse(row.payload) as { source: string; changes: EntityChange[] };
          return {
            event_id: row.id,
            project_revision: Number(row.revision),
            source: payload.source,
            changed_entities: payload.changes.slice(0, entityLimit),
            changed_entity_count: payload.changes.length,
            omitted_entities: Math.max(0, payload.changes.length - entityLimit),
          };
        }),
      },
      truncated: [workRows, sessionRows, projected].some((rows) => rows.length > limit),
    },
  };
}
