import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { runJournaledWrite, type WriteReceipt } from "../journal/run-write.js";
import type { EntityTable, LedgerSchema } from "../storage/schema.js";
import { claimHolder, markReleased, settleWorkClaim } from "./claims.js";
import { asFields, choice, type Fields, optText, text } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { pendingWait, requireWork, resolveSession, waitBlocksError } from "./runtime-lookup.js";
import { type ClaimView, claimView } from "./runtime-views.js";
import {
  plannedFieldChanges,
  transitionRefusal,
  WORK_ACTION_RULES,
  WORK_ACTIONS,
  type WorkAction,
} from "./work-actions.js";
import { type CompletionEntry, checkCompletion } from "./work-completion.js";

export interface WorkTransitionInput {
  work: string;
  action: WorkAction;
  session?: string;
  conversation?: string;
  next_action?: string;
  blocker?: string;
  reason?: string;
  completion?: CompletionEntry[];
  expected_revision: number;
  request_id?: string;
}

export interface WorkTransitionResult {
  action: WorkAction;
  work: {
    work: string;
    previous_status: string;
    status: string;
    next_action: string | null;
    blocker: string | null;
  };
  /** The completion mapping as checked (complete only). */
  completion?: { criterion: string; evidence: string[] }[];
  /** The session's claim released by `complete`. */
  released_claim?: ClaimView;
}

function readCompletion(fields: Fields): CompletionEntry[] | undefined {
  const value = fields["completion"];
  if (value === undefined || value === null) return undefined;
  const bad = () =>
    new LedgerError(
      "InvalidInput",
      "completion must be a list of { criterion: string, evidence: string[] }",
      { field: "completion" },
    );
  if (!Array.isArray(value) || value.length > 200) throw bad();
  return value.map((entry) => {
    if (entry === null || typeof entry !== "object") throw bad();
    const { criterion, evidence, ...rest } = entry as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || typeof criterion !== "string" || criterion === "") {
      throw bad();
    }
    if (!Array.isArray(evidence) || !evidence.every((e) => typeof e === "string" && e !== "")) {
      throw bad();
    }
    return { criterion, evidence: evidence as string[] };
  });
}

function stringAttribute(work: EntityTable, name: string): string | null {
  const value = (JSON.parse(work.attributes) as Record<string, unknown>)[name];
  return typeof value === "string" ? value : null;
}

/**
 * awr_work_transition: one work action under the state machine, claim, dependency, wait and
 * evidence rules of AWR.md section 3, written back into the work item's YAML source.
 */
export async function workTransition(
  ctx: RuntimeContext,
  input: WorkTransitionInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<WorkTransitionResult & WriteReceipt> {
  const fields = asFields(input, [
    "work",
    "action",
    ...SESSION_REF_FIELDS,
    "next_action",
    "blocker",
    "reason",
    "completion",
    ...WRITE_FIELDS,
  ]);
  const write = readWriteFields(fields);
  const workRef = text(fields, "work", { max: 256 });
  const action = choice(fields, "action", WORK_ACTIONS);
  const ref = readSessionRef(fields);
  const nextAction = optText(fields, "next_action", { max: 4096 });
  const blocker = optText(fields, "blocker", { max: 4096 });
  const reason = optText(fields, "reason", { max: 4096 });
  const completion = readCompletion(fields);
  const rule = WORK_ACTION_RULES[action];
  if (action === "block" && blocker === undefined) {
    throw new LedgerError("InvalidInput", "block needs a blocker: say what the work waits on", {
      field: "blocker",
    });
  }
  if (action !== "block" && blocker !== undefined) {
    throw new LedgerError("InvalidInput", "blocker applies to the block action only", {
      field: "blocker",
    });
  }
  if (action !== "complete" && completion !== undefined) {
    throw new LedgerError("InvalidInput", "completion applies to the complete action only", {
      field: "completion",
    });
  }
  const hasSession = ref.session !== undefined || ref.conversation !== undefined;
  if (rule.needsClaim && !hasSession) {
    throw new LedgerError(
      "InvalidInput",
      `${action} needs your session (session or conversation): it must hold the work's claim`,
      { field: "session" },
    );
  }

  const check = async (db: Kysely<LedgerSchema>, nowMs: number) => {
    const item = await requireWork(db, workRef);
    const session: SessionTable | undefined = hasSession
      ? await resolveSession(db, caller, ref)
      : undefined;
    const blockingWaits = await db
      .selectFrom("waits")
      .innerJoin("sessions", "sessions.id", "waits.session")
      .selectAll("waits")
      .where("waits.status", "=", "waiting_user")
      .where("sessions.work", "=", item.key)
      .where("sessions.status", "=", "active")
      .execute();
    const own = session === undefined ? undefined : await pendingWait(db, session.id);
    const wait = own ?? blockingWaits[0];
    if (wait !== undefined) throw waitBlocksError(wait, `${action} of ${item.key}`);
    const refusal = transitionRefusal(action, item.status);
    if (refusal !== null) {
      throw new LedgerError("InvalidTransition", `${item.key}: ${refusal}`, {
        work: item.key,
        status: item.status,
        action,
      });
    }
    if (rule.needsClaim) {
      const holder = await claimHolder(db, item.key, nowMs);
      if (holder === undefined || holder.session !== session?.id) {
        throw new LedgerError(
          "ClaimConflict",
          holder === undefined
            ? `${action} of ${item.key} needs your session's active claim; acquire it with awr_session_claim`
            : `${item.key} is claimed by session ${holder.session}, not by yours`,
          {
            work: item.key,
            ...(holder === undefined
              ? {}
              : { holder: { session: holder.session, claim: holder.id } }),
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
      action === "complete" ? await checkCompletion(db, item, completion ?? []) : undefined;
    return { item, session, mapping };
  };

  return runJournaledWrite(
    ctx,
    {
      tool: "awr_work_transition",
      input: fields,
      write,
      caller,
      precheck: async (db) => {
        await check(db, ctx.now());
        return undefined;
      },
      domain: (op) =>
        op.commit(async (unit) => {
          await settleWorkClaim(unit, (await requireWork(unit.tx, workRef)).key);
          const { item, session, mapping } = await check(unit.tx, unit.nowMs);
          const currentBlocker = stringAttribute(item, "blocker");
          const changes = plannedFieldChanges(
            action,
            { status: item.status, blocker: currentBlocker },
            {
              ...(nextAction === undefined ? {} : { next_action: nextAction }),
              ...(blocker === undefined ? {} : { blocker }),
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
          let released: ClaimView | undefined;
          if (action === "complete" && session !== undefined) {
            const held = await settleWorkClaim(unit, item.key);
            if (held !== undefined && held.session === session.id) {
              released = claimView(await markReleased(unit, held));
              await unit.event({
                type: DOMAIN_EVENT_TYPES.claimReleased,
                work: item.key,
                session: session.id,
                summary: `claim on ${item.key} released on completion`,
                payload: { claim: held.id, reason: "completed" },
              });
            }
          }
          const result: WorkTransitionResult = {
            action,
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
            ...(released === undefined ? {} : { released_claim: released }),
          };
          await unit.terminal(
            {
              type: rule.event,
              work: item.key,
              session: session?.id ?? null,
              summary: reason ?? `${item.key}: ${item.status} -> ${changes.status}`,
              payload: {
                action,
                from: item.status,
                to: changes.status,
                ...(reason === undefined ? {} : { reason }),
                ...(changes.next_action === undefined ? {} : { next_action: changes.next_action }),
                ...(changes.blocker === undefined ? {} : { blocker: changes.blocker }),
              },
            },
            { ...result },
          );
          return result;
        }),
    },
    options,
  );
}
