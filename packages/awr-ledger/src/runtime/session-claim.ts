import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import type { WriteReceipt } from "../journal/run-write.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type CheckedChange, runCheckedWrite } from "./checked-write.js";
import {
  acquireClaim,
  claimConflict,
  claimHolder,
  markReleased,
  settleWorkClaim,
} from "./claims.js";
import { asFields, choice, optInt, optText } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { requireWork, resolveActiveSession } from "./runtime-lookup.js";
import { type ClaimView, claimView } from "./runtime-views.js";
import { MAX_TTL_MS } from "./session-start.js";

export interface SessionClaimInput {
  session?: string;
  conversation?: string;
  action: "acquire" | "release";
  /** Defaults to the session's work. */
  work?: string;
  ttl_ms?: number;
  expected_revision: number;
  request_id?: string;
}

export interface SessionClaimResult {
  action: "acquire" | "release";
  claim: ClaimView;
  /** True when an acquire renewed the session's own claim (new ttl from now). */
  renewed: boolean;
}

const CLOSED = ["completed", "cancelled"];

/**
 * awr_session_claim: acquire (or renew) / release the claim of an active session on a work item.
 * At most one claim is in force per item; a claim never rewrites the source status.
 */
export async function sessionClaim(
  ctx: RuntimeContext,
  input: SessionClaimInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionClaimResult & WriteReceipt> {
  const fields = asFields(input, [
    ...SESSION_REF_FIELDS,
    "action",
    "work",
    "ttl_ms",
    ...WRITE_FIELDS,
  ]);
  const write = readWriteFields(fields);
  const ref = readSessionRef(fields);
  const action = choice(fields, "action", ["acquire", "release"] as const);
  const workRef = optText(fields, "work", { max: 256 });
  const ttlMs = optInt(fields, "ttl_ms", { min: 1, max: MAX_TTL_MS });
  if (ttlMs !== undefined && action === "release") {
    throw new LedgerError("InvalidInput", "ttl_ms applies to acquire only", { field: "ttl_ms" });
  }

  const check = async (db: Kysely<LedgerSchema>, nowMs: number) => {
    const session = await resolveActiveSession(db, caller, ref, `claim ${action}`);
    const target = workRef ?? session.work;
    if (target === null) {
      throw new LedgerError("InvalidInput", "the session has no work: name the work to claim", {
        field: "work",
      });
    }
    const item = await requireWork(db, target);
    const holder = await claimHolder(db, item.key, nowMs);
    if (action === "acquire") {
      if (CLOSED.includes(item.status)) {
        throw new LedgerError(
          "InvalidTransition",
          `work ${item.key} is ${item.status}; reopen it before claiming it`,
          { work: item.key, status: item.status },
        );
      }
      if (holder !== undefined && holder.session !== session.id) {
        throw claimConflict(item.key, holder);
      }
    } else if (holder === undefined || holder.session !== session.id) {
      throw new LedgerError(
        "ClaimConflict",
        `session ${session.id} holds no claim on ${item.key} to release` +
          (holder === undefined ? "" : ` (session ${holder.session} holds it)`),
        {
          work: item.key,
          ...(holder === undefined
            ? {}
            : { holder: { session: holder.session, claim: holder.id } }),
        },
      );
    }
    return { session, item };
  };

  return runCheckedWrite(
    ctx,
    {
      tool: "awr_session_claim",
      input: fields,
      write,
      caller,
      check,
      apply: async (unit, { session, item }): Promise<CheckedChange<SessionClaimResult>> => {
        if (action === "acquire") {
          const { claim, renewed } = await acquireClaim(unit, session, item.key, ttlMs);
          return {
            result: { action, claim: claimView(claim), renewed },
            event: {
              type: DOMAIN_EVENT_TYPES.workClaimed,
              work: item.key,
              session: session.id,
              summary: `session ${session.id} ${renewed ? "renewed its claim on" : "claimed"} ${item.key}`,
              payload: { claim: claim.id, ttl_ms: ttlMs ?? null, renewed },
            },
          };
        }
        const held = await settleWorkClaim(unit, item.key);
        if (held === undefined) throw new Error("internal: claim vanished under the lock");
        const released = await markReleased(unit, held);
        return {
          result: { action, claim: claimView(released), renewed: false },
          event: {
            type: DOMAIN_EVENT_TYPES.claimReleased,
            work: item.key,
            session: session.id,
            summary: `claim on ${item.key} released by session ${session.id}`,
            payload: { claim: held.id, reason: "release" },
          },
        };
      },
    },
    options,
  );
}
