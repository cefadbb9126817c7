import type { Kysely } from "kysely";
import { claimHolder, markReleased, settleWorkClaim } from "../claims/claims.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { ClaimTable, SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import { type EventRecord, eventRecord } from "../journal/operation-views.js";
import { runJournaledWrite, type WriteReceipt } from "../journal/run-write.js";
import {
  pendingWait,
  requireWork,
  resolveSession,
  waitBlocksError,
} from "../runtime/runtime-lookup.js";
import type { EntityTable, LedgerSchema } from "../storage/schema.js";
import {
  plannedFieldChanges,
  transitionRefusal,
  WORK_ACTION_RULES,
  type WorkAction,
} from "./work-actions.js";
import { type CompletionInput, checkCompletion } from "./work-completion.js";

export interface WorkTransitionInput extends WriteFields {
  work: string;
  action: WorkAction;
  session?: string | undefined;
  conversation?: string | undefined;
  /** Why (required; recorded on the event). */
  reason: string;
  next_action?: string | undefined;
  /** A one-line account for the event (defaults to the reason). */
  summary?: string | undefined;
  blocker?: string | undefined;
  completion?: CompletionInput | undefined;
}

/** The applied change, as a proposal receipt (docs/compatibility/runtime.md). */
export interface AppliedProposal {
  status: "applied";
  action: WorkAction;
  work: string;
  from: string;
  to: string;
  /** The YAML source the change was written back into. */
  source_path: string;
}

export interface WorkTransitionResult {
  /** Always null on success (every transition receipt carries these two fields). */
  code: null;
  error: null;
  write_outcome: "committed";
  source_refresh_performed: false;
  /** The new state was written back into the item's YAML source. */
  source_write_performed: true;
  proposal: AppliedProposal;
  /** The terminal `work.*` event; its payload lists `released_claim_ids`. */
  event: EventRecord;
  work: {
    work: string;
    previous_status: string;
    status: string;
    next_action: string | null;
    blocker: string | null;
  };
  /** The completion mapping as checked (complete only). */
  completion?: { criterion: string; evidence: string[] }[];
}

function stringAttribute(work: EntityTable, name: string): string | null {
  const value = (JSON.parse(work.attributes) as Record<string, unknown>)[name];
  return typeof value === "string" ? value : null;
}

/**
 * awr_work_transition: one work action under the state machine, claim, dependency, wait and
 * evidence rules, written back into the work item's YAML source. `complete`
 * and `cancel` release the acting session's claim on the item.
 */
export async function workTransition(
  ctx: RuntimeContext,
  input: WorkTransitionInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<WorkTransitionResult & WriteReceipt> {
  const { action } = input;
  const rule = WORK_ACTION_RULES[action];
  if (action === "block" && input.blocker === undefined) {
    throw new LedgerError("InvalidInput", "block needs a blocker: say what the work waits on", {
      field: "blocker",
    });
  }
  if (action !== "block" && input.blocker !== undefined) {
    throw new LedgerError("InvalidInput", "blocker applies to the block action only", {
      field: "blocker",
    });
  }
  if (action !== "complete" && input.completion !== undefined) {
    throw new LedgerError("InvalidInput", "completion applies to the complete action only", {
      field: "completion",
    });
  }

  /**
   * The transition's rules, in the order their refusals win. `holderOf` answers the claim in
   * force on the item: a plain read in the precheck, and inside the commit the one settling of
   * the item's claim (an outdated active claim marked expired), whose holder the release uses.
   */
  const check = async (
    db: Kysely<LedgerSchema>,
    holderOf: (work: string, branch: string | null) => Promise<ClaimTable | undefined>,
  ) => {
    const item = await requireWork(db, input.work);
    const session: SessionTable = await resolveSession(db, caller, input);
    const blockingWaits = await db
      .selectFrom("waits")
      .innerJoin("sessions", "sessions.id", "waits.session")
      .selectAll("waits")
      .where("waits.status", "=", "waiting_user")
      .where("sessions.work", "=", item.key)
      .where("sessions.status", "=", "active")
      .execute();
    const wait = (await pendingWait(db, session.id)) ?? blockingWaits[0];
    if (wait !== undefined) throw waitBlocksError(wait, `${action} of ${item.key}`);
    const refusal = transitionRefusal(action, item.status);
    if (refusal !== null) {
      throw new LedgerError("InvalidTransition", `${item.key}: ${refusal}`, {
        work: item.key,
        status: item.status,
        action,
      });
    }
    const holder = await holderOf(item.key, session.branch);
    if (rule.needsClaim) {
      if (holder === undefined || holder.session !== session.id) {
        throw new LedgerError(
          "ClaimConflict",
          holder === undefined
            ? `${action} of ${item.key} needs your session's active claim, and no session holds one: claim it first with awr_session_claim (action acquire)`
            : `${item.key} is claimed by session ${holder.session}, not by yours (${session.id}); choose other work or wait until that claim is released or expires`,
          {
            work: item.key,
            session: session.id,
            holder:
              holder === undefined
                ? null
                : {
                    session: holder.session,
                    claim: holder.id,
                    expires_at: holder.expires_at === null ? null : Number(holder.expires_at),
                  },
          },
        );
      }
    }
    if (rule.needsDependencies) {
      const deps = await db
        .selectFrom("dependencies")
        .leftJoin("entities", "entities.key", "dependencies.depends_on")
        .select(["dependencies.depends_on as work", "entities.status as status"])
        .where("dependencies.work_key", "=", item.key)
        .where("dependencies.required", "=", 1)
        .orderBy("dependencies.depends_on")
        .execute();
      const unmet = deps.filter((d) => d.status !== "completed");
      if (unmet.length > 0) {
        throw new LedgerError(
          "DependencyBlocked",
          `${action} of ${item.key} waits on required dependencies: ` +
            unmet.map((d) => `${d.work} (${d.status ?? "missing"})`).join(", "),
          {
            work: item.key,
            dependencies: unmet.map((d) => ({ work: d.work, status: d.status ?? "missing" })),
          },
        );
      }
    }
    const mapping =
      action === "complete"
        ? await checkCompletion(db, item, input.completion, ctx.root, session.branch)
        : undefined;
    return { item, session, mapping, holder };
  };

  return runJournaledWrite(
    ctx,
    {
      input,
      caller,
      precheck: async (db) => {
        const nowMs = ctx.now();
        await check(db, (work, branch) => claimHolder(db, work, nowMs, branch));
        return undefined;
      },
      domain: (op) =>
        op.commit(async (unit) => {
          const { item, session, mapping, holder } = await check(
            unit.tx,
            async (work, branch) => (await settleWorkClaim(unit, work, branch)).holder,
          );
          const currentBlocker = stringAttribute(item, "blocker");
          const changes = plannedFieldChanges(
            action,
            { status: item.status, blocker: currentBlocker },
            {
              ...(input.next_action === undefined ? {} : { next_action: input.next_action }),
              ...(input.blocker === undefined ? {} : { blocker: input.blocker }),
            },
          );
          await ctx.writeBack(unit.tx, item, changes);
          const attributes = JSON.parse(item.attributes) as Record<string, unknown>;
          if (changes.next_action !== undefined) attributes["next_action"] = changes.next_action;
          if (changes.blocker !== undefined) attributes["blocker"] = changes.blocker;
          await unit.tx
            .updateTable("entities")
            .set({ status: changes.status, attributes: JSON.stringify(attributes) })
            .where("id", "=", item.id)
            .execute();
          const released: string[] = [];
          if (action === "complete" || action === "cancel") {
            if (holder !== undefined && holder.session === session.id) {
              await markReleased(unit, holder);
              released.push(holder.id);
              await unit.event({
                type: DOMAIN_EVENT_TYPES.claimReleased,
                work: item.key,
                session: session.id,
                summary: `claim on ${item.key} released when it was ${changes.status}`,
                payload: { claim: holder.id, reason: action },
              });
            }
          }
          const event = {
            id: ulid(),
            type: rule.event,
            work: item.key,
            session: session.id,
            summary: input.summary ?? input.reason,
            payload: {
              action,
              from: item.status,
              to: changes.status,
              reason: input.reason,
              released_claim_ids: released,
              ...(changes.next_action === undefined ? {} : { next_action: changes.next_action }),
              ...(changes.blocker === undefined ? {} : { blocker: changes.blocker }),
            },
          };
          const result: WorkTransitionResult = {
            code: null,
            error: null,
            write_outcome: "committed",
            source_refresh_performed: false,
            source_write_performed: true,
            proposal: {
              status: "applied",
              action,
              work: item.key,
              from: item.status,
              to: changes.status,
              source_path: item.source_path,
            },
            event: eventRecord({
              ...event,
              importance: "normal",
              branch: session.branch,
              revision: unit.revision,
              client: caller.client,
              operation_id: op.operationId,
              payload: JSON.stringify(event.payload),
              time: unit.time,
            }),
            work: {
              work: item.key,
              previous_status: item.status,
              status: changes.status,
              next_action:
                changes.next_action === undefined
                  ? stringAttribute(item, "next_action")
                  : changes.next_action,
              blocker: changes.blocker === undefined ? currentBlocker : changes.blocker,
            },
            ...(mapping === undefined ? {} : { completion: mapping }),
          };
          await unit.terminal(event, { ...result });
          return result;
        }),
    },
    options,
  );
}
