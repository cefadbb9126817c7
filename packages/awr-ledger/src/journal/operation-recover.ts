import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { WriteOutcome } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import { appendEvent } from "../storage/events.js";
import { checkExpectedRevision, spendRevision } from "../storage/revision.js";
import { decideRecovery, type TerminalEventView } from "./journal-decision.js";
import { findOperation, type RecordedError } from "./journal-store.js";
import { isTerminalEvent, TERMINAL_PAYLOAD_KEY, terminalRef } from "./operation-scope.js";

export interface OperationRecoverInput {
  request_id: string;
  expected_revision: number;
}

export interface OperationRecoverResult {
  request_id: string;
  operation_id: string;
  tool: string;
  write_outcome: Exclude<WriteOutcome, "unknown">;
  /** True when this or an earlier recovery settled the request (rather than its own finish). */
  recovered: boolean;
  /** True when the request was already settled and this call only returns the record. */
  replayed?: boolean;
  /** The recorded (or rebuilt) result of the request being recovered. */
  result?: Record<string, unknown>;
  /** The recorded error of the request being recovered. */
  error?: RecordedError;
  project_revision: number;
}

function notCommittedError(requestId: string): RecordedError {
  return {
    code: "MutationConflict",
    message:
      `request ${requestId} was interrupted before its domain change committed, and recovery ` +
      "recorded it as not committed. Read the current state and, if the write is still wanted, " +
      "send it again under a new request_id.",
    details: { write_outcome: "not_committed", request_id: requestId },
  };
}

/**
 * awr_operation_recover. It never runs the recovered request's tool again: a finished
 * request is returned as recorded; an unfinished one is settled from its terminal events, one
 * durable commit spending one revision, with `mcp.operation_recovered`. Recovery itself is not
 * journaled (its `request_id` names the request being recovered) and is idempotent: recovering
 * again replays the settled record.
 */
export async function operationRecover(
  ctx: RuntimeContext,
  input: OperationRecoverInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<OperationRecoverResult> {
  const signal = options?.signal;
  throwIfAborted(signal);
  const { request_id: requestId, expected_revision: expected } = input;
  const notFound = () =>
    new LedgerError(
      "NotFound",
      `no request ${requestId} from this client is journaled; check the request_id`,
      { request_id: requestId },
    );
  if ((await ctx.store.read((db) => findOperation(db, caller.client, requestId))) === undefined) {
    throw notFound();
  }
  return ctx.store.withProjectLock(
    async (store) => {
      const entry = await findOperation(store.db, caller.client, requestId);
      if (entry === undefined) throw notFound();
      const events = await store.db
        .selectFrom("events")
        .selectAll()
        .where("operation_id", "=", entry.id)
        .orderBy("seq")
        .execute();
      const terminals: TerminalEventView[] = events.filter(isTerminalEvent).map((e) => ({
        id: e.id,
        seq: Number(e.seq),
        type: e.type,
        revision: Number(e.revision),
        payload: e.payload,
      }));
      const decision = decideRecovery(entry, terminals);
      const base = { request_id: requestId, operation_id: entry.id, tool: entry.tool };
      if (decision.kind === "replay") {
        return {
          ...base,
          write_outcome: (entry.write_outcome ?? "not_committed") as "committed" | "not_committed",
          recovered: entry.recovered === 1,
          replayed: true,
          ...(entry.result === null ? {} : { result: JSON.parse(entry.result) }),
          ...(entry.error === null ? {} : { error: JSON.parse(entry.error) as RecordedError }),
          project_revision: await store.currentRevision(),
        };
      }
      if (decision.kind === "ambiguous") {
        throw new LedgerError(
          "MutationConflict",
          `request ${requestId} has ${decision.terminals.length} terminal events bound to it, so ` +
            "its outcome is ambiguous; recovery refuses to guess. Inspect the receipts with " +
            "awr_operation_get and reconcile by hand.",
          { request_id: requestId, terminal_events: decision.terminals.map((t) => t.id) },
        );
      }
      checkExpectedRevision(expected, await store.currentRevision());
      throwIfAborted(signal);
      return store.write(async (tx) => {
        const revision = await spendRevision(tx);
        const time = new Date(ctx.now()).toISOString();
        let result: Record<string, unknown> | undefined;
        let error: RecordedError | undefined;
        let outcome: "committed" | "not_committed";
        if (decision.kind === "committed") {
          const payload = JSON.parse(decision.terminal.payload) as Record<string, unknown>;
          const marker = payload[TERMINAL_PAYLOAD_KEY] as { result?: object };
          result = {
            ...(marker.result ?? {}),
            terminal_event: terminalRef(decision.terminal),
            request_id: requestId,
            project_revision: revision,
            recovered: true,
          };
          outcome = "committed";
        } else {
          error = notCommittedError(requestId);
          outcome = "not_committed";
        }
        await tx
          .updateTable("operations")
          .set({
            status: "finished",
            write_outcome: outcome,
            result: result === undefined ? null : JSON.stringify(result),
            error: error === undefined ? null : JSON.stringify(error),
            recovered: 1,
            finished_revision: revision,
            finished_at: time,
          })
          .where("id", "=", entry.id)
          .execute();
        await appendEvent(tx, {
          type: DOMAIN_EVENT_TYPES.operationRecovered,
          revision,
          client: caller.client,
          operation_id: entry.id,
          summary: `${entry.tool} recovered: ${outcome}`,
          payload: {
            request_id: requestId,
            tool: entry.tool,
            write_outcome: outcome,
            ...(decision.kind === "committed" ? { terminal_event: decision.terminal.id } : {}),
          },
          time,
        });
        return {
          ...base,
          write_outcome: outcome,
          recovered: true,
          ...(result === undefined ? {} : { result }),
          ...(error === undefined ? {} : { error }),
          project_revision: revision,
        };
      });
    },
    { signal, leaseMs: ctx.lockLeaseMs },
  );
}
