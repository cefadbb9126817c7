import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { isLedgerError, LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import { ulid } from "../internal/ulid.js";
import { appendEvent } from "../storage/events.js";
import { checkExpectedRevision, spendRevision } from "../storage/revision.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";
import { injectFault } from "./fault-injection.js";
import { journalRequest } from "./fingerprint.js";
import { decideForRequest } from "./journal-decision.js";
import {
  errorRecord,
  findOperation,
  fingerprintConflictError,
  finishOperationQuery,
  insertOperationQuery,
  lostReceiptError,
  type OperationRef,
  operationRef,
  replayRecorded,
  unknownOutcomeError,
} from "./journal-store.js";
import {
  createOperationScope,
  type OperationScope,
  type TerminalEventRef,
  terminalRef,
} from "./operation-scope.js";

/** Every write result carries these. */
export interface WriteReceipt {
  project_revision: number;
  /** The request id of a journaled write (absent for a direct one). */
  request_id?: string;
  /** A journaled write's terminal event (absent when a precheck answered without a change). */
  terminal_event?: TerminalEventRef;
  /**
   * A journaled write: the revision its domain commit (or, for an answer that changed nothing,
   * its check) was recorded at; `project_revision` is the revision after the whole write, or
   * for a replay the project's revision now.
   */
  receipt_project_revision?: number;
  /** A journaled write's journal entry (absent for a direct one). */
  operation?: OperationRef;
  /** Present (true) only when the result is a replay of a recorded one. */
  replayed?: boolean;
}

export interface JournaledWrite<R extends object> {
  /** The checked tool input as the caller sent it (fingerprinted without `project`). */
  input: Readonly<WriteFields>;
  caller: RuntimeCaller;
  /**
   * Optional: under the lock, after the revision check, before anything is journaled. A result
   * here means "nothing to change" (e.g. a reused session binding): it is recorded as finished
   * (journaled) or returned (direct) without spending a revision and without events.
   */
  precheck?: (db: Kysely<LedgerSchema>) => Promise<R | undefined>;
  /** The domain operation; must append exactly one terminal event. */
  domain: (op: OperationScope) => Promise<R>;
}

/** `revision`: the project's revision now, for a replay's answer. */
async function decideOrThrow(
  entry: Parameters<typeof decideForRequest>[0],
  fingerprint: string,
  revision: () => Promise<number>,
): Promise<Record<string, unknown> | undefined> {
  const decision = decideForRequest(entry, fingerprint);
  switch (decision.kind) {
    case "run":
      return undefined;
    case "replay":
      return replayRecorded(decision.entry, await revision());
    case "fingerprint_conflict":
      throw fingerprintConflictError(decision.entry.request_id);
    case "unfinished":
      throw unknownOutcomeError(decision.entry);
  }
}

function exactlyOneTerminal(tool: string, scope: OperationScope): void {
  if (scope.terminalCount !== 1) {
    throw new Error(
      `internal: ${tool} appended ${scope.terminalCount} terminal events; exactly one is required`,
    );
  }
}

/**
 * Runs one write. With a `request_id` it goes through the request journal:
 * replay, conflict or unknown for a known request_id; otherwise, holding the
 * project write lock, check expected_revision, then (a) `mcp.operation_started`, (b) the domain
 * commit, (c) `mcp.operation_finished`, each its own durable commit (three revisions;
 * docs/design/journal-three-steps.md, docs/design/revision-accounting.md). A
 * LedgerError from (b) is recorded as the request's outcome (`not_committed`) and thrown; any
 * other failure after (a) is answered as an unknown outcome (MutationConflict, `write_outcome:
 * "unknown"`), for operation get/recover to settle. Without a `request_id` (stdio, the local CLI)
 * it is a direct write: the revision check and the one domain commit (one
 * revision), nothing journaled, nothing to replay. The signal is honoured until the write begins.
 */
export async function runJournaledWrite<R extends object>(
  ctx: RuntimeContext,
  write: JournaledWrite<R>,
  options?: CallOptions,
): Promise<R & WriteReceipt> {
  throwIfAborted(options?.signal);
  const tool = options?.tool;
  if (tool === undefined) throw new Error("internal: a write runs through the catalog's dispatch");
  const spec = { ...write, tool };
  const requestId = spec.input.request_id;
  if (requestId === undefined) return directWrite(ctx, spec, options);
  const signal = options?.signal;
  const { client } = spec.caller;
  const { arguments: argumentsJson, fingerprint } = journalRequest(spec.tool, spec.input);
  const early = await ctx.store.read(
    async (db) =>
      decideOrThrow(await findOperation(db, client, requestId), fingerprint, () =>
        ctx.store.currentRevision(db),
      ),
    { signal },
  );
  if (early !== undefined) return early as R & WriteReceipt;
  await options?.beforeWrite?.();

  return ctx.store.withProjectLock(
    async (store) => {
      const held = { ...ctx, store };
      const request = { requestId, argumentsJson, fingerprint, signal };
      const begun = await beginJournaled(held, spec, request);
      if (begun.kind === "answered") return begun.result;
      injectFault("after_begin");
      const started = { request_id: requestId, id: begun.operationId };
      try {
        return await finishJournaled(held, spec, started);
      } catch (error) {
        if (isLedgerError(error)) throw error;
        // The domain change may or may not have committed, and no final receipt says which.
        throw lostReceiptError(started, error);
      }
    },
    { signal, leaseMs: ctx.lockLeaseMs, leaseInWrites: true },
  );
}

type Begun<R> =
  | { kind: "answered"; result: R & WriteReceipt }
  | { kind: "started"; operationId: string };

/**
 * Step (a), in the transaction that also takes the cross-process lock (leaseInWrites): the
 * journal lookup is repeated and expected_revision checked there, then either the precheck
 * answers (recorded as finished, the lock released with it), or `mcp.operation_started` and the
 * `started` entry commit. A check that throws rolls the whole transaction back.
 */
async function beginJournaled<R extends object>(
  ctx: RuntimeContext,
  spec: JournaledWrite<R> & { tool: string },
  request: {
    requestId: string;
    argumentsJson: string;
    fingerprint: string;
    signal: AbortSignal | undefined;
  },
): Promise<Begun<R>> {
  const { store } = ctx;
  const { client } = spec.caller;
  const { requestId, argumentsJson, fingerprint, signal } = request;
  return store.write<Begun<R>>(
    async (tx) => {
      throwIfAborted(signal);
      const again = await decideOrThrow(
        await findOperation(tx, client, requestId),
        fingerprint,
        () => store.currentRevision(tx),
      );
      if (again !== undefined) return { kind: "answered", result: again as R & WriteReceipt };
      const current = await store.currentRevision(tx);
      checkExpectedRevision(spec.input.expected_revision, current);
      const startedAt = new Date(ctx.now()).toISOString();
      const entry = {
        client,
        request_id: requestId,
        tool: spec.tool,
        fingerprint,
        arguments: argumentsJson,
        recovered: 0,
        started_at: startedAt,
      };

      const unchanged = await spec.precheck?.(tx);
      if (unchanged !== undefined) {
        const id = ulid();
        const result = {
          ...unchanged,
          request_id: requestId,
          receipt_project_revision: current,
          project_revision: current,
          operation: operationRef({ id, request_id: requestId }, false),
        };
        await insertOperationQuery.all(tx, {
          ...entry,
          id,
          status: "finished",
          write_outcome: "committed",
          result: JSON.stringify(result),
          error: null,
          started_revision: current,
          finished_revision: current,
          finished_at: startedAt,
        });
        return { kind: "answered", result };
      }

      throwIfAborted(signal);
      // (a) The request is journaled before anything else changes.
      const operationId = ulid();
      const revision = await spendRevision(tx);
      await insertOperationQuery.all(tx, {
        ...entry,
        id: operationId,
        status: "started",
        write_outcome: null,
        result: null,
        error: null,
        started_revision: revision,
        finished_revision: null,
        finished_at: null,
      });
      await appendEvent(tx, {
        type: DOMAIN_EVENT_TYPES.operationStarted,
        revision,
        client,
        operation_id: operationId,
        summary: `${spec.tool} started (request ${requestId})`,
        payload: { request_id: requestId, tool: spec.tool, fingerprint },
        time: startedAt,
      });
      return { kind: "started", operationId };
    },
    { signal, releasesLock: (begun) => begun.kind === "answered" },
  );
}

/** Steps (b) and (c) of a journaled write whose request is already begun. */
async function finishJournaled<R extends object>(
  ctx: RuntimeContext,
  spec: JournaledWrite<R> & { tool: string },
  started: { request_id: string; id: string },
): Promise<R & WriteReceipt> {
  const { store } = ctx;
  const { client } = spec.caller;
  const scope = createOperationScope(ctx, {
    operationId: started.id,
    requestId: started.request_id,
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
  if (domainError === undefined) exactlyOneTerminal(spec.tool, scope);
  injectFault("after_domain");
  injectFault("finish_fails");

  // (c) The outcome is recorded; the result carries the final revision.
  const finished = await store.write(
    async (tx) => {
      const revision = await spendRevision(tx);
      const finishedAt = new Date(ctx.now()).toISOString();
      const result =
        domainError === undefined
          ? {
              ...(domainResult as R),
              terminal_event: terminalRef(scope.terminalEvent as EventTable),
              request_id: started.request_id,
              receipt_project_revision: Number(scope.terminalEvent?.revision),
              project_revision: revision,
              operation: operationRef(started, false),
            }
          : undefined;
      const error = domainError === undefined ? undefined : errorRecord(domainError);
      const writeOutcome = domainError === undefined ? "committed" : "not_committed";
      await finishOperationQuery.all(tx, {
        id: started.id,
        status: "finished",
        write_outcome: writeOutcome,
        result: result === undefined ? null : JSON.stringify(result),
        error: error === undefined ? null : JSON.stringify(error),
        finished_revision: revision,
        finished_at: finishedAt,
      });
      await appendEvent(tx, {
        type: DOMAIN_EVENT_TYPES.operationFinished,
        revision,
        client,
        operation_id: started.id,
        summary: `${spec.tool} finished: ${writeOutcome}`,
        payload: {
          request_id: started.request_id,
          tool: spec.tool,
          write_outcome: writeOutcome,
          ...(result === undefined ? { error } : { result }),
        },
        time: finishedAt,
      });
      return result as R & WriteReceipt;
    },
    { releasesLock: true },
  );
  if (domainError !== undefined) throw domainError;
  return finished;
}

/** A write without a request_id: the revision check and one domain commit, nothing journaled. */
/** An error raised by the database itself (better-sqlite3's SqliteError, pg's DatabaseError). */
function isDatabaseError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    !isLedgerError(error) &&
    (error.name === "SqliteError" || error.constructor.name === "DatabaseError")
  );
}

/**
 * A database failure inside a direct write (a refused receipt insert, a full disk), reported
 * once its transaction has rolled back: nothing of the write remains (docs/design/work-branches.md,
 * "Error codes").
 */
function storageError(tool: string, cause: Error): LedgerError {
  return new LedgerError(
    "Storage",
    `the database failed during ${tool}: ${cause.message}; the write was rolled back and nothing changed. Inspect the database with awr doctor`,
    { tool },
    { cause },
  );
}

async function directWrite<R extends object>(
  ctx: RuntimeContext,
  spec: JournaledWrite<R> & { tool: string },
  options?: CallOptions,
): Promise<R & WriteReceipt> {
  const signal = options?.signal;
  await options?.beforeWrite?.();
  return ctx.store.withProjectLock(
    async (store) => {
      throwIfAborted(signal);
      const current = await store.currentRevision();
      checkExpectedRevision(spec.input.expected_revision, current);
      const unchanged = await spec.precheck?.(store.db);
      if (unchanged !== undefined) return { ...unchanged, project_revision: current };
      throwIfAborted(signal);
      const scope = createOperationScope(
        { ...ctx, store },
        {
          operationId: null,
          requestId: null,
          client: spec.caller.client,
          tool: spec.tool,
        },
      );
      let result: R;
      try {
        result = await spec.domain(scope);
      } catch (error) {
        throw isDatabaseError(error) ? storageError(spec.tool, error) : error;
      }
      exactlyOneTerminal(spec.tool, scope);
      return { ...result, project_revision: scope.lastRevision };
    },
    { signal, leaseMs: ctx.lockLeaseMs },
  );
}
