import { LIMITS } from "../core/limits.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import { redactSecretStrings } from "../secrets/index.js";
import { findOperation, normaliseOperation } from "./journal-store.js";
import {
  isDomainReceipt,
  type OperationSummary,
  operationNextAction,
  operationSummary,
  type ReceiptRecord,
  receiptRecord,
} from "./operation-views.js";

export interface OperationGetInput {
  request_id: string;
}

/** The journal entry as awr_operation_get nests it (docs/compatibility/mcp-protocol.md). */
export interface OperationEntry {
  id: string;
  request_id: string;
  tool: string;
  status: "started" | "finished";
  write_outcome: OperationSummary["write_outcome"];
  recovered: boolean;
  started_revision: number | null;
  finished_revision: number | null;
  started_at: string;
  finished_at: string | null;
}

export interface OperationGetResult extends OperationSummary {
  operation: OperationEntry;
  /** The recorded success result, when there is one. */
  result?: Record<string, unknown>;
  /** The recorded `{code, message, details?}`, when the request's outcome is an error. */
  error?: Record<string, unknown>;
  /** Domain events bound to this operation (the journal's own events left out). */
  domain_receipts: ReceiptRecord[];
  /** Always false: every receipt is listed. */
  receipts_may_have_more: false;
  next_action: string;
  project_revision: number;
}

/** awr_operation_get: a request of this client, with its receipts; another client's is NotFound. */
export async function operationGet(
  ctx: RuntimeContext,
  input: OperationGetInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<OperationGetResult> {
  throwIfAborted(options?.signal);
  const requestId = input.request_id;
  return ctx.store.read(async (db) => {
    const entry = await findOperation(db, caller.client, requestId);
    if (entry === undefined) {
      throw new LedgerError(
        "NotFound",
        `no request ${requestId} from this client is journaled; check the request_id`,
        { request_id: requestId },
      );
    }
    const events = await db
      .selectFrom("events")
      .selectAll()
      .where("operation_id", "=", entry.id)
      .orderBy("seq")
      .execute();
    const revision = await ctx.store.currentRevision(db);
    // The recorded result and receipts as stored; text holding a credential (from before the
    // secret policy) is shown as `[redacted]`.
    const summary = operationSummary(entry);
    return redactSecretStrings({
      ...summary,
      operation: {
        id: summary.operation_id,
        request_id: summary.request_id,
        tool: summary.tool,
        status: summary.status,
        write_outcome: summary.write_outcome,
        recovered: summary.recovered,
        started_revision: summary.started_revision,
        finished_revision: summary.finished_revision,
        started_at: summary.started_at,
        finished_at: summary.finished_at,
      },
      ...(entry.result === null ? {} : { result: JSON.parse(entry.result) }),
      ...(entry.error === null ? {} : { error: JSON.parse(entry.error) }),
      domain_receipts: events.filter(isDomainReceipt).map(receiptRecord),
      receipts_may_have_more: false,
      next_action: operationNextAction(entry),
      project_revision: revision,
    });
  }, options);
}

export interface OperationListInput {
  outcome?: "recorded" | "unknown" | undefined;
  limit?: number | undefined;
  before_revision?: number | undefined;
}

export interface OperationListResult {
  operations: OperationSummary[];
  project_revision: number;
}

/**
 * This client's journal, newest first; `outcome: "unknown"` lists the requests that still need
 * awr_operation_recover. Paged by `before_revision` (entries begun before that revision).
 */
export async function operationList(
  ctx: RuntimeContext,
  input: OperationListInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<OperationListResult> {
  throwIfAborted(options?.signal);
  const { outcome, before_revision: before } = input;
  const limit = input.limit ?? LIMITS.operationLimitDefault;
  return ctx.store.read(async (db) => {
    let query = db.selectFrom("operations").selectAll().where("client", "=", caller.client);
    if (outcome !== undefined) {
      query = query.where("status", "=", outcome === "recorded" ? "finished" : "started");
    }
    if (before !== undefined) query = query.where("started_revision", "<", before);
    const rows = await query
      .orderBy("started_revision", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return {
      operations: rows.map((row) => operationSummary(normaliseOperation(row))),
      project_revision: await ctx.store.currentRevision(db),
    };
  }, options);
}
