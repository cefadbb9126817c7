import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { SESSION_STATUSES, type SessionStatus } from "../core/runtime-tables.js";
import { throwIfAborted } from "../internal/abort.js";
import { claimInForce } from "./claims.js";
import { asFields, optChoice, optInt } from "./input/fields.js";
import { readSessionRef, SESSION_REF_FIELDS } from "./input/write-fields.js";
import { resolveSession } from "./runtime-lookup.js";
import {
  type CheckpointView,
  type ClaimView,
  checkpointView,
  claimView,
  type SessionView,
  sessionView,
  type WaitView,
  waitView,
} from "./runtime-views.js";

export interface SessionGetInput {
  session?: string;
  conversation?: string;
}

export interface SessionGetResult {
  session: SessionView;
  /** Claims in force (an active claim past its ttl is not listed). */
  claims: ClaimView[];
  checkpoint: CheckpointView | null;
  /** The pending wait, if any. */
  wait: WaitView | null;
  project_revision: number;
}

/** awr_session_get: one of this client's sessions with its claims, last checkpoint and wait. */
export async function sessionGet(
  ctx: RuntimeContext,
  input: SessionGetInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionGetResult> {
  throwIfAborted(options?.signal);
  const ref = readSessionRef(asFields(input ?? {}, [...SESSION_REF_FIELDS]));
  return ctx.store.read(async (db) => {
    const session = await resolveSession(db, caller, ref);
    const nowMs = ctx.now();
    const claims = await db
      .selectFrom("claims")
      .selectAll()
      .where("session", "=", session.id)
      .where("status", "=", "active")
      .orderBy("acquired_revision")
      .execute();
    const checkpoint =
      session.last_checkpoint === null
        ? undefined
        : await db
            .selectFrom("checkpoints")
            .selectAll()
            .where("id", "=", session.last_checkpoint)
            .executeTakeFirst();
    const wait = await db
      .selectFrom("waits")
      .selectAll()
      .where("session", "=", session.id)
      .where("status", "=", "waiting_user")
      .executeTakeFirst();
    return {
      session: sessionView(session),
      claims: claims.filter((claim) => claimInForce(claim, nowMs)).map(claimView),
      checkpoint: checkpoint === undefined ? null : checkpointView(checkpoint),
      wait: wait === undefined ? null : waitView(wait),
      project_revision: await ctx.store.currentRevision(db),
    };
  }, options);
}

export interface SessionListInput {
  limit?: number;
  before_revision?: number;
  status?: SessionStatus;
}

export interface SessionListResult {
  sessions: SessionView[];
  /** Pass as `before_revision` for the next page; null on the last page. */
  next_before_revision: number | null;
  project_revision: number;
}

/** awr_session_list: this client's sessions, newest first, paged by `before_revision`. */
export async function sessionList(
  ctx: RuntimeContext,
  input: SessionListInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionListResult> {
  throwIfAborted(options?.signal);
  const fields = asFields(input ?? {}, ["limit", "before_revision", "status"]);
  const limit = optInt(fields, "limit", { min: 1, max: 100 }) ?? 20;
  const before = optInt(fields, "before_revision", { min: 0 });
  const status = optChoice(fields, "status", SESSION_STATUSES);
  return ctx.store.read(async (db) => {
    let query = db.selectFrom("sessions").selectAll().where("client", "=", caller.client);
    if (before !== undefined) query = query.where("start_revision", "<", before);
    if (status !== undefined) query = query.where("status", "=", status);
    const rows = await query
      .orderBy("start_revision", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      sessions: page.map(sessionView),
      next_before_revision:
        rows.length > limit && last !== undefined ? Number(last.start_revision) : null,
      project_revision: await ctx.store.currentRevision(db),
    };
  }, options);
}
