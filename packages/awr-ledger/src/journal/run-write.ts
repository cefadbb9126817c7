import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { isLedgerError, type LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import { ulid } from "../internal/ulid.js";
import { appendEvent } from "../storage/events.js";
import { checkExpectedRevision, spendRevision } from "../storage/revision.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";
import { injectFault } from "./fault-injection.js";
import { canonicalJson, requestFingerprint } from "./fingerprint.js";
import { decideForRequest } from "./journal-decision.js";
import {
  errorRecord,
  findOperation,
  fingerprintConflictError,
  replayRecorded,
  unknownOutcomeError,
} from "./journal-store.js";
import {
  createOperationScope,
  type OperationScope,
  type TerminalEventRef,
  terminalRef,
} from "./operation-scope.js";

/** Every write result carries these (AWR.md section 4). */
export interface WriteReceipt {
  project_revision: number;
  request_id: string;
  /** The domain's terminal event (absent when a precheck answered without a change). */
  terminal_event?: TerminalEventRef;
  /** Present (true) only when the result is a replay of a recorded one. */
  replayed?: boolean;
}

export interface JournaledWrite<R extends object> {
  tool: string;
  /** The validated tool input as the caller sent it (fingerprinted without `project`). */
  input: Readonly<Record<string, unknown>>;
  write: WriteFields;
  caller: RuntimeCaller;
  /**
   * Optional: under the lock, after the revision check, before anything is journaled. A result
   * here means "nothing to change" (e.g. a reused session binding): it is recorded as finished
   * without spending a revision and without events.
   */
  precheck?: (db: Kysely<LedgerSchema>) => Promise<R | undefined>;
  /** Step (b): the domain operation; must append exactly one terminal event. */
  domain: (op: OperationScope) => Promise<R>;
}

/** Request ids the ledger generates for writes that arrive without one (stdio, CLI). */
export function generatedRequestId(): string {
  return `local-${ulid()}`;
}

function decideOrThrow(
  entry: Parameters<typeof decideForRequest>[0],
  fingerprint: string,
): Record<string, unknown> | undefined {
  const decision = decideForRequest(entry, fingerprint);
  switch (decision.kind) {
    case "run":
      return undefined;
    case "replay":
      return replayRecorded(decision.entry);
    case "fingerprint_conflict":
      throw fingerprintConflictError(decision.entry.request_id);
    case "unfinished":
      throw unknownOutcomeError(decision.entry);
  }
}

/**
 * Runs one write through the request journal exactly as AWR.md section 4 prescribes: replay,
 * conflict or unknown for a known request_id; otherwise, holding the project write lock, check
 * expected_revision, then (a) `mcp.operation_started`, (b) the domain commit, (c)
 * `mcp.operation_finished`, each its own durable commit. A LedgerError from (b) is recorded as
 * the request's outcome (`not_committed`) and thrown; any other failure leaves the request
 * unfinished, for operation get/recover to settle. The signal is honoured until (a) only: a
 * begun write is always carried to its end.
 */
export async function runJournaledWrite<R extends object>(
  ctx: RuntimeContext,
  spec: JournaledWrite<R>,
  options?: CallOptions,
): Promise<R & WriteReceipt> {
  const signal = options?.signal;
  throwIfAborted(signal);
  const { client } = spec.caller;
  const requestId = spec.write.request_id ?? generatedRequestId();
  const fingerprint = requestFingerprint(spec.tool, spec.input);
  const early = decideOrThrow(
    await ctx.store.read((db) => findOperation(db, client, requestId), { signal }),
    fingerprint,
  );
  if (early !== undefined) return early as R & WriteReceipt;

  return ctx.store.withProjectLock(
    async () => {
      throwIfAborted(signal);
      const { store } = ctx;
      const again = decideOrThrow(await findOperation(store.db, client, requestId), fingerprint);
      if (again !== undefined) return again as R & WriteReceipt;
      const current = await store.currentRevision();
      checkExpectedRevision(spec.write.expected_revision, current);
      const { project: _project, ...args } = spec.input;
      const argumentsJson = canonicalJson(args);
      const startedAt = new Date(ctx.now()).toISOString();

      if (spec.precheck !== undefined) {
        const unchanged = await spec.precheck(store.db);
        if (unchanged !== undefined) {
          const result = { ...unchanged, request_id: requestId, project_revision: current };
          await store.write(async (tx) => {
            await tx
              .insertInto("operations")
              .values({
                id: ulid(),
                client,
                request_id: requestId,
                tool: spec.tool,
                fingerprint,
                arguments: argumentsJson,
                status: "finished",
                write_outcome: "committed",
                result: JSON.stringify(result),
                error: null,
                recovered: 0,
                started_revision: current,
                finished_revision: current,
                started_at: startedAt,
                finished_at: startedAt,
              })
              .execute();
          });
          return result;
        }
      }

      throwIfAborted(signal);
      // (a) The request is journaled before anything else changes.
      const operationId = ulid();
      await store.write(async (tx) => {
        const revision = await spendRevision(tx);
        await tx
          .insertInto("operations")
          .values({
            id: operationId,
            client,
            request_id: requestId,
            tool: spec.tool,
            fingerprint,
            arguments: argumentsJson,
            status: "started",
            write_outcome: null,
            result: null,
            error: null,
            recovered: 0,
            started_revision: revision,
            finished_revision: null,
            started_at: startedAt,
            finished_at: null,
          })
          .execute();
        await appendEvent(tx, {
          type: DOMAIN_EVENT_TYPES.operationStarted,
          revision,
          client,
          operation_id: operationId,
          summary: `${spec.tool} started (request ${requestId})`,
          payload: { request_id: requestId, tool: spec.tool, fingerprint },
          time: startedAt,
        });
      });
      injectFault("after_begin");

      // (b) The domain operation.
      const scope = createOperationScope(ctx, {
        operationId,
        requestId,
        client,
        tool: spec.tool,
      });
      let domainResult: R | undefined;
      let domainError: LedgerError | undefined;
      try {
        domainResult = await spec.domain(scope);
      } catch (error) {
        if (!isLedgerError(error)) throw error;
        domainError = error;
      }
      if (domainError === undefined && scope.terminalCount !== 1) {
        throw new Error(
          `internal: ${spec.tool} appended ${scope.terminalCount} terminal events; exactly one is required`,
        );
      }
      injectFault("after_domain");

      // (c) The outcome is recorded; the result carries the final revision.
      const finished = await store.write(async (tx) => {
        const revision = await spendRevision(tx);
        const finishedAt = new Date(ctx.now()).toISOString();
        const result =
          domainError === undefined
            ? {
                ...(domainResult as R),
                terminal_event: terminalRef(scope.terminalEvent as EventTable),
                request_id: requestId,
                project_revision: revision,
              }
            : undefined;
        const error = domainError === undefined ? undefined : errorRecord(domainError);
        const writeOutcome = domainError === undefined ? "committed" : "not_committed";
        await tx
          .updateTable("operations")
          .set({
            status: "finished",
            write_outcome: writeOutcome,
            result: result === undefined ? null : JSON.stringify(result),
            error: error === undefined ? null : JSON.stringify(error),
            finished_revision: revision,
            finished_at: finishedAt,
          })
          .where("id", "=", operationId)
          .execute();
        await appendEvent(tx, {
          type: DOMAIN_EVENT_TYPES.operationFinished,
          revision,
          client,
          operation_id: operationId,
          summary: `${spec.tool} finished: ${writeOutcome}`,
          payload: {
            request_id: requestId,
            tool: spec.tool,
            write_outcome: writeOutcome,
            ...(result === undefined ? { error } : { result }),
          },
          time: finishedAt,
        });
        return result as R & WriteReceipt;
      });
      if (domainError !== undefined) throw domainError;
      return finished;
    },
    { signal, leaseMs: ctx.lockLeaseMs },
  );
}
