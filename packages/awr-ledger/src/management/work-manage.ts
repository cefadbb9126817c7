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
import { isLedgerError, LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import { canonicalJson } from "../journal/fingerprint.js";
import { runJournaledWrite, type WriteReceipt } from "../journal/run-write.js";
import { requireActive, requireWork, resolveSession } from "../runtime/runtime-lookup.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  checkObservation,
  type ManagementObservation,
  normalizeObservation,
} from "./management-decision.js";
import { assessWork, parseReceipt, projectionIn, type WorkAssessment } from "./work-assess.js";

type Db = Kysely<LedgerSchema>;

export interface WorkManageInput extends WriteFields {
  work: string;
  session: string;
  /** The caller's stable key for this record: the same key with the same input records once. */
  request_key: string;
  /** The contract_fingerprint of the assessment the caller read (awr_work_assess). */
  contract_fingerprint: string;
  observation: ManagementObservation;
}

/** The management.assessed event a result names. */
export interface ManagementEventView {
  id: string;
  event_type: string;
  work: string | null;
  session: string | null;
  branch_id: string | null;
  revision: number;
  summary: string | null;
}

export interface WorkManageResult {
  already_recorded: boolean;
  assessment: WorkAssessment;
  event: ManagementEventView;
  /** Present on a new record: nothing but the runtime receipt was written. */
  source_write_performed?: false;
  completion_claimed?: false;
}

const SUMMARY = "Assessed management intensity; completion policy unchanged";

/** What a request_key binds: the same key must always carry the same input. */
function boundInput(input: WorkManageInput): Record<string, unknown> {
  return {
    work: input.work,
    session: input.session,
    contract_fingerprint: input.contract_fingerprint,
    observation: normalizeObservation(input.observation),
  };
}

function checkRequestKey(key: string): void {
  if (
    key.trim() === "" ||
    Buffer.byteLength(key, "utf8") > LIMITS.managementRequestKeyBytes ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
    /[\u0000-\u001f\u007f-\u009f]/.test(key)
  ) {
    throw new LedgerError(
      "InvalidInput",
      `management needs a stable request_key: non-blank, at most ${LIMITS.managementRequestKeyBytes} bytes, no control characters`,
      { field: "request_key" },
    );
  }
}

/**
 * The record made earlier under this request_key for the work: the same input is answered as
 * already recorded, other input is SourceConflict (a key never binds two observations).
 */
async function recordedUnderKey(
  db: Db,
  input: WorkManageInput,
): Promise<(WorkManageResult & { project_revision: number }) | undefined> {
  const rows = await db
    .selectFrom("events")
    .select(["id", "type", "work", "session", "branch", "revision", "summary", "payload"])
    .where("type", "=", DOMAIN_EVENT_TYPES.managementAssessed)
    .where("work", "=", input.work)
    .orderBy("seq", "desc")
    .execute();
  const bound = canonicalJson(boundInput(input));
  for (const row of rows) {
    const receipt = parseReceipt(row.payload) as ReturnType<typeof parseReceipt> & {
      assessment?: WorkAssessment;
    };
    if (receipt.request_key !== input.request_key) continue;
    if (canonicalJson(receipt.input) !== bound) {
      throw new LedgerError(
        "SourceConflict",
        `request_key ${input.request_key} already records different observations for ${input.work} (event ${row.id}); use a new request_key for a new observation`,
        { request_key: input.request_key, event: row.id },
      );
    }
    const current = await db.selectFrom("project_state").select("revision").executeTakeFirst();
    return {
      already_recorded: true,
      assessment: receipt.assessment as WorkAssessment,
      event: {
        id: row.id,
        event_type: row.type,
        work: row.work,
        session: row.session,
        branch_id: row.branch,
        revision: Number(row.revision),
        summary: row.summary,
      },
      project_revision: Number(current?.revision ?? row.revision),
    };
  }
  return undefined;
}

/**
 * The sources are refreshed before a record is made; when that refresh is refused (a planning
 * source does not index: its issues are in the details), no observation is recorded against the
 * projection it left in place, and the refusal is SourceStale, naming what to repair.
 */
async function refreshedOrStale(refresh: () => Promise<void>): Promise<void> {
  try {
    await refresh();
  } catch (error) {
    const issues = isLedgerError(error) ? error.details?.["issues"] : undefined;
    if (!Array.isArray(issues)) throw error;
    throw new LedgerError(
      "SourceStale",
      `the planning sources do not index (${(error as LedgerError).message}); repair them and reindex before recording management. Nothing was recorded.`,
      { issues },
      { cause: error },
    );
  }
}

interface Checked {
  session: SessionTable;
  assessment: WorkAssessment;
}

/** The whole check, against the ledger as `db` sees it at revision `revision`. */
async function check(
  db: Db,
  caller: RuntimeCaller,
  input: WorkManageInput,
  nowMs: number,
): Promise<Checked> {
  checkObservation(input.observation, nowMs);
  const work = await requireWork(db, input.work);
  const session = await resolveSession(db, caller, { session: input.session });
  if (session.work !== work.key) {
    throw new LedgerError(
      "RuleViolation",
      `session ${session.id} is not a session of ${work.key}; a management record must come from a session of the work it assesses`,
      { session: session.id, work: work.key, session_work: session.work },
    );
  }
  requireActive(session, "recording management observations");
  const assessment = await assessWork(db, await projectionIn(db), work.key, session.branch, {
    observation: normalizeObservation(input.observation),
    observer: session.agent,
  });
  if (assessment.contract_fingerprint !== input.contract_fingerprint) {
    throw new LedgerError(
      "SourceConflict",
      `the contract of ${work.key} changed (now ${assessment.contract_fingerprint}); read the current assessment with awr_work_assess before recording observations`,
      { work: work.key, contract_fingerprint: assessment.contract_fingerprint },
    );
  }
  assessment.record_required = false;
  if (assessment.admission_gaps.length === 0) {
    assessment.next_action = "follow_required_actions_and_existing_workflow";
  }
  return { session, assessment };
}

/**
 * awr_work_manage: records the host's observations of one work item, and the management
 * assessment they produce, as a `management.assessed` event bound to a session of that work.
 * It writes no source file and claims nothing about completion; a continuous assessment stays
 * continuous for the work's later assessments on the same branch.
 */
export async function workManage(
  ctx: RuntimeContext,
  input: WorkManageInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<WorkManageResult & WriteReceipt> {
  checkRequestKey(input.request_key);
  checkObservation(input.observation, ctx.now());
  const earlier = await ctx.store.read((db) => recordedUnderKey(db, input), options);
  if (earlier !== undefined) return earlier;
  const refresh = options?.beforeWrite;
  const writeOptions =
    refresh === undefined ? options : { ...options, beforeWrite: () => refreshedOrStale(refresh) };
  return runJournaledWrite<WorkManageResult>(
    ctx,
    {
      input,
      caller,
      precheck: async (db) => {
        const recorded = await recordedUnderKey(db, input);
        if (recorded !== undefined) return recorded;
        await check(db, caller, input, ctx.now());
        return undefined;
      },
      domain: (op) =>
        op.commit(async (unit) => {
          const { session, assessment } = await check(unit.tx, caller, input, unit.nowMs);
          const payload = {
            version: 1,
            request_key: input.request_key,
            input: boundInput(input),
            observer: session.agent,
            assessment,
          };
          const bytes = Buffer.byteLength(JSON.stringify(payload), "utf8");
          if (bytes > LIMITS.managementReceiptBytes) {
            throw new LedgerError(
              "InvalidInput",
              `the management receipt would be ${bytes} bytes; it is at most ${LIMITS.managementReceiptBytes}`,
              { bytes },
            );
          }
          const eventId = ulid();
          const result: WorkManageResult = {
            already_recorded: false,
            assessment,
            event: {
              id: eventId,
              event_type: DOMAIN_EVENT_TYPES.managementAssessed,
              work: input.work,
              session: session.id,
              branch_id: session.branch,
              revision: unit.revision,
              summary: SUMMARY,
            },
            source_write_performed: false,
            completion_claimed: false,
          };
          await unit.terminal(
            {
              id: eventId,
              type: DOMAIN_EVENT_TYPES.managementAssessed,
              work: input.work,
              session: session.id,
              branch: session.branch,
              summary: SUMMARY,
              payload,
            },
            result as unknown as Record<string, unknown>,
          );
          return result;
        }),
    },
    writeOptions,
  );
}
