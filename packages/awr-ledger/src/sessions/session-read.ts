import type { Kysely } from "kysely";
import { type ClaimView, claimView } from "../claims/claim-view.js";
import { LIMITS } from "../core/limits.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { throwIfAborted } from "../internal/abort.js";
import { resolveSession, type SessionRef } from "../runtime/runtime-lookup.js";
import {
  type CheckpointView,
  checkpointView,
  type SessionView,
  sessionView,
  type WaitView,
  waitView,
} from "../runtime/runtime-views.js";
import { redactSecretStrings } from "../secrets/index.js";
import type { LedgerSchema } from "../storage/schema.js";
import { inheritedCheckpointId } from "./recovery-checkpoint.js";

export type SessionGetInput = SessionRef;

/** How many of a session's waits awr_session_get lists (newest first). */
const WAITS_SHOWN = LIMITS.sessionWaitsShown;
/** How far back a session's predecessors are followed for their waits. */
const LINEAGE_DEPTH = LIMITS.sessionLineageDepth;

/** Which host conversation a session is bound to. */
export interface SessionBinding {
  client: string;
  conversation: string;
}

/** What a host sees of one session: awr_session_get, and a reused awr_session_start. */
export interface SessionState {
  session: SessionView;
  binding: SessionBinding;
  /** Its claims that are active or expired (a claim past its expiry is shown as expired). */
  claims: ClaimView[];
  checkpoint: CheckpointView | null;
  /**
   * For a resumed session: the predecessor's checkpoint it started from; for a session that
   * received a handoff: the checkpoint the sender handed over (docs/design/work-branches.md R9).
   */
  inherited_checkpoint: CheckpointView | null;
  /** `waiting_user` while the session has a pending wait, else `available`. */
  continuity_state: "waiting_user" | "available";
  /** The pending wait, if any. */
  wait: WaitView | null;
  /**
   * Its waits and those of the sessions it was resumed from (each names its session_id), newest
   * first, answered and cancelled ones included (at most 20): a successor sees what was asked and
   * answered before it.
   */
  waits: WaitView[];
  /** The session that resumed this one, once one did. */
  resumed_successor: SessionView | null;
}

export interface SessionGetResult extends SessionState {
  project_revision: number;
}

/**
 * awr_session_get: one of this client's sessions with its claims, checkpoints and waits. A stored
 * text that holds a credential (kept from before the secret policy) is shown as `[redacted]`.
 */
export async function sessionGet(
  ctx: RuntimeContext,
  input: SessionGetInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionGetResult> {
  throwIfAborted(options?.signal);
  return ctx.store.read(async (db) => {
    const session = await resolveSession(db, caller, input);
    return redactSecretStrings({
      ...(await sessionState(db, session, ctx.now(), ctx.store.projectId)),
      project_revision: await ctx.store.currentRevision(db),
    });
  }, options);
}

/**
 * One session as a host sees it (its binding, claims, checkpoints, waits and successor), read in
 * `db`. Stored text is returned as stored: callers that answer a host redact it.
 */
export async function sessionState(
  db: Kysely<LedgerSchema>,
  session: SessionTable,
  nowMs: number,
  projectId: string,
): Promise<SessionState> {
  const checkpointById = async (id: string | null) =>
    id === null
      ? undefined
      : db.selectFrom("checkpoints").selectAll().where("id", "=", id).executeTakeFirst();
  const lineage = [session.id];
  for (let at = session.predecessor; at !== null && lineage.length <= LINEAGE_DEPTH; ) {
    lineage.push(at);
    const row = await db
      .selectFrom("sessions")
      .select("predecessor")
      .where("id", "=", at)
      .executeTakeFirst();
    at = row?.predecessor ?? null;
  }
  const [claims, checkpoint, inherited, waits, successor] = await Promise.all([
    db
      .selectFrom("claims")
      .selectAll()
      .where("session", "=", session.id)
      .where("status", "in", ["active", "expired"])
      .orderBy("acquired_revision")
      .execute(),
    checkpointById(session.last_checkpoint),
    checkpointById(await inheritedCheckpointId(db, session.id)),
    db
      .selectFrom("waits")
      .selectAll()
      .where("session", "in", lineage)
      .orderBy("created_revision", "desc")
      .orderBy("id", "desc")
      .limit(WAITS_SHOWN)
      .execute(),
    session.successor === null
      ? undefined
      : db
          .selectFrom("sessions")
          .selectAll()
          .where("id", "=", session.successor)
          .executeTakeFirst(),
  ]);
  const pending = waits.find((w) => w.status === "waiting_user" && w.session === session.id);
  return {
    session: sessionView(session, projectId),
    binding: { client: session.client, conversation: session.conversation },
    claims: claims.map((claim) => claimView(claim, nowMs)),
    checkpoint: checkpoint === undefined ? null : checkpointView(checkpoint),
    inherited_checkpoint: inherited === undefined ? null : checkpointView(inherited),
    continuity_state: pending === undefined ? "available" : "waiting_user",
    wait: pending === undefined ? null : waitView(pending),
    waits: waits.map(waitView),
    resumed_successor: successor === undefined ? null : sessionView(successor, projectId),
  };
}

export interface SessionListInput {
  limit?: number | undefined;
  before_revision?: number | undefined;
}

export interface SessionListResult {
  sessions: SessionView[];
  /** Pass as `before_revision` for the next page; null on the last page. */
  next_before_revision: number | null;
  /** Whose sessions these are: always the calling client's. */
  scope: "current client";
  project_revision: number;
}

/**
 * awr_session_list: this client's sessions, newest first, paged by `before_revision`; stored text
 * is redacted as in awr_session_get.
 */
export async function sessionList(
  ctx: RuntimeContext,
  input: SessionListInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionListResult> {
  throwIfAborted(options?.signal);
  const limit = input.limit ?? LIMITS.limit.default;
  return ctx.store.read(async (db) => {
    let query = db.selectFrom("sessions").selectAll().where("client", "=", caller.client);
    if (input.before_revision !== undefined) {
      query = query.where("start_revision", "<", input.before_revision);
    }
    const rows = await query
      .orderBy("start_revision", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      sessions: redactSecretStrings(page.map((s) => sessionView(s, ctx.store.projectId))),
      next_before_revision:
        rows.length > limit && last !== undefined ? Number(last.start_revision) : null,
      scope: "current client",
      project_revision: await ctx.store.currentRevision(db),
    };
  }, options);
}
