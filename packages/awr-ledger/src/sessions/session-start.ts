import type { Kysely } from "kysely";
import { claimInForce } from "../claims/claim-in-force.js";
import { type ClaimView, claimView } from "../claims/claim-view.js";
import { acquireClaim, claimConflict, claimHolder } from "../claims/claims.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import { runJournaledWrite, type WriteReceipt } from "../journal/run-write.js";
import { branchIdOf, MAIN, resolveActiveBranch } from "../runtime/branch-select.js";
import { activeBinding, requireWork } from "../runtime/runtime-lookup.js";
import { type SessionView, sessionView } from "../runtime/runtime-views.js";
import { redactSecretStrings } from "../secrets/index.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type SessionBinding, type SessionState, sessionState } from "./session-read.js";

export interface SessionStartInput extends WriteFields {
  work: string;
  conversation: string;
  agent: string;
  provider: string;
  model: string;
  claim?: boolean | undefined;
  ttl_ms?: number | undefined;
  /** Omitted or null: the selected default; else a branch name or id, or "main". */
  branch?: string | null | undefined;
}

/** A new session: what it is bound to and the event that started it. */
export interface SessionStarted {
  session: SessionView;
  /** The session's claim on its work, when it holds one. */
  claim: ClaimView | null;
  binding: SessionBinding;
  binding_reused: false;
  /** The `session.started` event. */
  event_id: string;
}

/** The same binding again: the session as awr_session_get shows it, and what to do next. */
export interface SessionReused extends SessionState {
  claim: ClaimView | null;
  binding_reused: true;
  next_action: string;
}

export type SessionStartResult = SessionStarted | SessionReused;

const REUSED_NEXT_ACTION =
  "Compile the current context and check the session's claims before acting; a closed session needs awr_session_resume.";

async function claimOf(db: Kysely<LedgerSchema>, session: SessionTable, nowMs: number) {
  const rows = await db
    .selectFrom("claims")
    .selectAll()
    .where("session", "=", session.id)
    .where("status", "=", "active")
    .execute();
  const claim = rows.find((row) => row.work === session.work && claimInForce(row, nowMs));
  return claim === undefined ? null : claimView(claim);
}

/**
 * awr_session_start: binds (client, conversation) to a new active session on `work`, optionally
 * claiming it. The same binding again (same work, agent, provider, model and branch) is
 * `binding_reused: true` and spends no revision; a conversation bound to an active session on
 * other work, another branch or another agent identity is `SourceConflict`: a host that hands
 * the conversation to another model must not act as the session it did not start.
 */
export async function sessionStart(
  ctx: RuntimeContext,
  input: SessionStartInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionStartResult & WriteReceipt> {
  const { work, conversation, agent, provider, model } = input;
  const claim = input.claim === true;
  const ttlMs = input.ttl_ms;
  if (ttlMs !== undefined && !claim) {
    throw new LedgerError("InvalidInput", "ttl_ms applies to a claim: pass claim: true with it", {
      field: "ttl_ms",
    });
  }

  const check = async (db: Kysely<LedgerSchema>) => {
    const bound = await activeBinding(db, caller.client, conversation);
    const item = await requireWork(db, work);
    if (bound !== undefined && bound.work !== item.key) {
      throw new LedgerError(
        "SourceConflict",
        `conversation "${conversation}" is already bound to active session ${bound.id} on work ` +
          `${bound.work}; end or resume that session, or use another conversation`,
        { conversation, session: bound.id, work: bound.work },
      );
    }
    if (
      bound !== undefined &&
      (bound.agent !== agent || bound.provider !== provider || bound.model !== model)
    ) {
      throw new LedgerError(
        "SourceConflict",
        `conversation "${conversation}" is already bound to active session ${bound.id} of ` +
          `${bound.agent} (${bound.provider}/${bound.model}); another agent or model resumes that ` +
          "session (awr_session_resume) or uses another conversation",
        {
          conversation,
          session: bound.id,
          agent: bound.agent,
          provider: bound.provider,
          model: bound.model,
        },
      );
    }
    // The selected default is read here, inside the commit for the run that acts, so a switch
    // that lands between the precheck and the commit cannot split them.
    const branch =
      bound !== undefined && (input.branch === undefined || input.branch === null)
        ? (bound.branch ?? null)
        : branchIdOf(await resolveActiveBranch(db, input.branch));
    if (bound !== undefined && (bound.branch ?? null) !== branch) {
      throw new LedgerError(
        "SourceConflict",
        `conversation "${conversation}" is already bound to active session ${bound.id} on branch ` +
          `${bound.branch ?? MAIN}; end or resume that session, or use another conversation`,
        { conversation, session: bound.id, branch_id: bound.branch ?? null },
      );
    }
    if (claim && bound === undefined) {
      const holder = await claimHolder(db, item.key, ctx.now(), branch);
      if (holder !== undefined) throw claimConflict(item.key, holder);
    }
    return { bound, item, branch };
  };

  return runJournaledWrite<SessionStartResult>(
    ctx,
    {
      input,
      caller,
      precheck: async (db) => {
        const { bound } = await check(db);
        if (bound === undefined) return undefined;
        const nowMs = ctx.now();
        const reused: SessionReused = {
          ...(await sessionState(db, bound, nowMs, ctx.store.projectId)),
          claim: await claimOf(db, bound, nowMs),
          binding_reused: true,
          next_action: REUSED_NEXT_ACTION,
        };
        // Stored text holding a credential is neither returned nor recorded as the result.
        return redactSecretStrings(reused);
      },
      domain: (op) =>
        op.commit(async (unit) => {
          const { item, branch } = await check(unit.tx);
          const session: SessionTable = {
            id: ulid(),
            branch,
            client: caller.client,
            conversation,
            work: item.key,
            agent,
            provider,
            model,
            status: "active",
            predecessor: null,
            successor: null,
            summary: null,
            last_checkpoint: null,
            start_revision: unit.revision,
            end_revision: null,
            started_at: unit.time,
            ended_at: null,
          };
          await unit.tx.insertInto("sessions").values(session).execute();
          let claimed: ClaimView | null = null;
          if (claim) {
            const taken = await acquireClaim(unit, session, item.key, ttlMs);
            claimed = claimView(taken.claim);
            await unit.event({
              type: DOMAIN_EVENT_TYPES.workClaimed,
              work: item.key,
              session: session.id,
              summary: `session ${session.id} claimed ${item.key}`,
              payload: {
                claim: taken.claim.id,
                ttl_ms: ttlMs ?? null,
                expired_claim_ids: taken.expired,
              },
            });
          }
          const eventId = ulid();
          const result: SessionStarted = {
            session: sessionView(session, ctx.store.projectId),
            claim: claimed,
            binding: { client: caller.client, conversation },
            binding_reused: false,
            event_id: eventId,
          };
          await unit.terminal(
            {
              id: eventId,
              type: DOMAIN_EVENT_TYPES.sessionStarted,
              work: item.key,
              session: session.id,
              summary: `session started by ${agent} on ${item.key}`,
              payload: { conversation, agent, provider, model },
            },
            result as unknown as Record<string, unknown>,
          );
          return result;
        }),
    },
    options,
  );
}
