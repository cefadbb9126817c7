import type { Kysely } from "kysely";
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
import type { LedgerSchema } from "../storage/schema.js";
import { branchIdOf, MAIN, resolveActiveBranch } from "./branch-select.js";
import { acquireClaim, claimConflict, claimHolder, claimInForce } from "./claims.js";
import { activeBinding, requireWork } from "./runtime-lookup.js";
import { type ClaimView, claimView, type SessionView, sessionView } from "./runtime-views.js";

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

export interface SessionStartResult {
  session: SessionView;
  /** The session's claim on its work, when it holds one. */
  claim: ClaimView | null;
  /** True when the (client, conversation) binding already existed for this work. */
  binding_reused: boolean;
}

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
 * claiming it. The same binding on the same work again is `binding_reused: true` and spends no
 * revision; the conversation bound to an active session on other work is `SourceConflict`.
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

  return runJournaledWrite(
    ctx,
    {
      input,
      caller,
      precheck: async (db) => {
        const { bound } = await check(db);
        if (bound === undefined) return undefined;
        return {
          session: sessionView(bound),
          claim: await claimOf(db, bound, ctx.now()),
          binding_reused: true,
        };
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
          const result = { session: sessionView(session), claim: claimed, binding_reused: false };
          await unit.terminal(
            {
              type: DOMAIN_EVENT_TYPES.sessionStarted,
              work: item.key,
              session: session.id,
              summary: `session started by ${agent} on ${item.key}`,
              payload: { conversation, agent, provider, model },
            },
            result,
          );
          return result;
        }),
    },
    options,
  );
}
