import type { Kysely } from "kysely";
import type { OperationTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { PreparedQuery } from "../storage/prepared-query.js";
import type { LedgerSchema } from "../storage/schema.js";

const findOperationQuery = new PreparedQuery<
  { client: string; request_id: string },
  OperationTable
>((db, $) =>
  db
    .selectFrom("operations")
    .selectAll()
    .where("client", "=", $("client"))
    .where("request_id", "=", $("request_id")),
);

/** Inserts a journal entry. */
export const insertOperationQuery = new PreparedQuery<OperationTable, never>((db, $) =>
  db.insertInto("operations").values({
    id: $("id"),
    client: $("client"),
    request_id: $("request_id"),
    tool: $("tool"),
    fingerprint: $("fingerprint"),
    arguments: $("arguments"),
    status: $("status"),
    write_outcome: $("write_outcome"),
    result: $("result"),
    error: $("error"),
    recovered: $("recovered"),
    started_revision: $("started_revision"),
    finished_revision: $("finished_revision"),
    started_at: $("started_at"),
    finished_at: $("finished_at"),
  }),
);

/** Records a begun journal entry's outcome. */
export const finishOperationQuery = new PreparedQuery<
  Pick<
    OperationTable,
    "id" | "status" | "write_outcome" | "result" | "error" | "finished_revision" | "finished_at"
  >,
  never
>((db, $) =>
  db
    .updateTable("operations")
    .set({
      status: $("status"),
      write_outcome: $("write_outcome"),
      result: $("result"),
      error: $("error"),
      finished_revision: $("finished_revision"),
      finished_at: $("finished_at"),
    })
    .where("id", "=", $("id")),
);

/** Journal rows and the recorded outcome they stand for. */
export async function findOperation(
  db: Kysely<LedgerSchema>,
  client: string,
  requestId: string,
): Promise<OperationTable | undefined> {
  const row = await findOperationQuery.first(db, { client, request_id: requestId });
  return row === undefined ? undefined : normaliseOperation(row);
}

/** PostgreSQL returns BIGINT/INTEGER consistently as numbers here, but be explicit. */
export function normaliseOperation(row: OperationTable): OperationTable {
  return {
    ...row,
    recovered: Number(row.recovered),
    started_revision: row.started_revision === null ? null : Number(row.started_revision),
    finished_revision: row.finished_revision === null ? null : Number(row.finished_revision),
  };
}

export interface RecordedError {
  code: LedgerError["code"];
  message: string;
  details?: Record<string, unknown>;
}

/**
 * How a journaled write's answer names its journal entry (`operation`); a
 * replay says `replayed: true`.
 */
export interface OperationRef {
  id: string;
  request_id: string;
  status: "finished";
  replayed: boolean;
}

export function operationRef(
  entry: { id: string; request_id: string },
  replayed: boolean,
): OperationRef {
  return { id: entry.id, request_id: entry.request_id, status: "finished", replayed };
}

/**
 * Replays a finished entry: the recorded result with `replayed: true`, `operation.replayed`, the
 * revision it was recorded at as `receipt_project_revision` and the project's `revision` now as
 * `project_revision` (the next expected_revision, as after any answer); or its error again.
 */
export function replayRecorded(entry: OperationTable, revision: number): Record<string, unknown> {
  if (entry.error !== null) {
    const recorded = JSON.parse(entry.error) as RecordedError;
    throw new LedgerError(recorded.code, recorded.message, {
      ...(recorded.details ?? {}),
      request_id: entry.request_id,
      replayed: true,
    });
  }
  const result = JSON.parse(entry.result ?? "{}") as Record<string, unknown>;
  return {
    ...result,
    receipt_project_revision:
      result["receipt_project_revision"] ?? result["project_revision"] ?? null,
    project_revision: revision,
    operation: operationRef(entry, true),
    replayed: true,
  };
}

export const UNKNOWN_OUTCOME_NEXT_ACTION =
  "Do not replay this write. Call awr_operation_get to inspect it, then awr_operation_recover " +
  "with the same request_id and the current expected_revision to settle its outcome.";

/** The error for a request begun under this id but never finished. */
export function unknownOutcomeError(entry: OperationTable): LedgerError {
  return new LedgerError(
    "MutationConflict",
    `request_id ${entry.request_id} was begun but has not finished; its outcome is unknown. ` +
      UNKNOWN_OUTCOME_NEXT_ACTION,
    {
      write_outcome: "unknown",
      request_id: entry.request_id,
      operation_id: entry.id,
      next_action: UNKNOWN_OUTCOME_NEXT_ACTION,
    },
  );
}

/**
 * The answer when a begun request lost its final receipt (the process survived, e.g. the last
 * commit failed): its outcome is unknown, like a request found unfinished.
 */
export function lostReceiptError(
  entry: { request_id: string; id: string },
  cause: unknown,
): LedgerError {
  return new LedgerError(
    "MutationConflict",
    `request_id ${entry.request_id} began but its final receipt was not recorded; its outcome is ` +
      `unknown. ${UNKNOWN_OUTCOME_NEXT_ACTION}`,
    {
      write_outcome: "unknown",
      request_id: entry.request_id,
      operation_id: entry.id,
      next_action: UNKNOWN_OUTCOME_NEXT_ACTION,
    },
    { cause },
  );
}

export function fingerprintConflictError(requestId: string): LedgerError {
  return new LedgerError(
    "SourceConflict",
    `request_id already used with different arguments (request_id ${requestId}); a changed ` +
      "write needs a new request_id.",
    { request_id: requestId },
  );
}

export function errorRecord(error: LedgerError): RecordedError {
  return error.details === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, details: error.details };
}
