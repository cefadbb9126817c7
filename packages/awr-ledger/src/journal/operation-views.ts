import type { OperationTable, WriteOutcome } from "../core/runtime-tables.js";
import type { EventTable } from "../storage/schema.js";
import { UNKNOWN_OUTCOME_NEXT_ACTION } from "./journal-store.js";
import { isTerminalEvent, TERMINAL_PAYLOAD_KEY } from "./operation-scope.js";

/** An event as tools return it: payload parsed, ledger markers removed. */
export interface EventRecord {
  id: string;
  project_revision: number;
  event_type: string;
  importance: string;
  summary: string | null;
  payload: Record<string, unknown>;
  /** The work item's key. */
  work: string | null;
  session_id: string | null;
  /** The work branch it was written on (null = main, and the journal's own receipts). */
  branch_id: string | null;
  /** Milliseconds since the epoch. */
  created_at: number;
}

export function eventRecord(row: Omit<EventTable, "seq">): EventRecord {
  let payload: Record<string, unknown> = {};
  try {
    payload = JSON.parse(row.payload) as Record<string, unknown>;
  } catch {
    payload = {};
  }
  const { [TERMINAL_PAYLOAD_KEY]: _marker, ...data } = payload;
  return {
    id: row.id,
    project_revision: Number(row.revision),
    event_type: row.type,
    importance: row.importance ?? "normal",
    summary: row.summary,
    payload: data,
    work: row.work,
    session_id: row.session,
    branch_id: row.branch ?? null,
    created_at: Date.parse(row.time),
  };
}

/** A domain receipt of an operation, as awr_operation_get lists it. */
export interface ReceiptRecord {
  id: string;
  seq: number;
  event_type: string;
  project_revision: number;
  session_id: string | null;
  work: string | null;
  /** True for the operation's terminal event (the one recovery trusts). */
  terminal: boolean;
}

export function receiptRecord(row: EventTable): ReceiptRecord {
  return {
    id: row.id,
    seq: Number(row.seq),
    event_type: row.type,
    project_revision: Number(row.revision),
    session_id: row.session,
    work: row.work,
    terminal: isTerminalEvent(row),
  };
}

/** One journal entry as awr_operation_get and awr_operation_list show it. */
export interface OperationSummary {
  request_id: string;
  operation_id: string;
  tool: string;
  /**
   * The `expected_revision` the request was first sent with (from its journaled arguments), so a
   * client retrying a lost write under the same request_id can send identical arguments (the
   * fingerprint covers it). Null only if the journaled arguments lack it.
   */
  expected_revision: number | null;
  status: "started" | "finished";
  /** `recorded` once the request has a final outcome; `unknown` while it is begun but unfinished. */
  outcome: "recorded" | "unknown";
  write_outcome: WriteOutcome;
  recovered: boolean;
  started_revision: number | null;
  finished_revision: number | null;
  started_at: string;
  finished_at: string | null;
}

export function operationSummary(entry: OperationTable): OperationSummary {
  const finished = entry.status === "finished";
  return {
    request_id: entry.request_id,
    operation_id: entry.id,
    tool: entry.tool,
    expected_revision: journaledExpectedRevision(entry.arguments),
    status: finished ? "finished" : "started",
    outcome: finished ? "recorded" : "unknown",
    write_outcome: finished ? ((entry.write_outcome ?? "unknown") as WriteOutcome) : "unknown",
    recovered: entry.recovered === 1,
    started_revision: entry.started_revision,
    finished_revision: entry.finished_revision,
    started_at: entry.started_at,
    finished_at: entry.finished_at,
  };
}

/** `expected_revision` out of an entry's canonical arguments JSON; null when absent or unreadable. */
export function journaledExpectedRevision(argumentsJson: string): number | null {
  try {
    const args = JSON.parse(argumentsJson) as Record<string, unknown> | null;
    const value = args?.["expected_revision"];
    return typeof value === "number" && Number.isInteger(value) ? value : null;
  } catch {
    return null;
  }
}

export function operationNextAction(entry: OperationTable): string {
  if (entry.status !== "finished") return UNKNOWN_OUTCOME_NEXT_ACTION;
  if (entry.write_outcome === "committed") {
    return "Nothing to do: the write is recorded as committed; sending the same request again returns the recorded result.";
  }
  return "The write did not take effect: read the current state and, if it is still wanted, send it again under a new request_id.";
}

/** Domain receipts: the operation's own events, without the journal's started/finished/recovered. */
export function isDomainReceipt(row: Pick<EventTable, "type">): boolean {
  return !row.type.startsWith("mcp.operation_");
}
