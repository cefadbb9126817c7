import type { OperationTable } from "../core/runtime-tables.js";

/**
 * What to do with an incoming write, given the journal entry already recorded under the same
 * (client, request_id), if any. Pure, so the rule table is tested alone.
 */
export type JournalDecision =
  | { kind: "run" }
  | { kind: "replay"; entry: OperationTable }
  | { kind: "fingerprint_conflict"; entry: OperationTable }
  | { kind: "unfinished"; entry: OperationTable };

export function decideForRequest(
  entry: OperationTable | undefined,
  fingerprint: string,
): JournalDecision {
  if (entry === undefined) return { kind: "run" };
  if (entry.fingerprint !== fingerprint) return { kind: "fingerprint_conflict", entry };
  if (entry.status === "finished") return { kind: "replay", entry };
  return { kind: "unfinished", entry };
}

/** The terminal domain events bound to an operation, as recovery sees them. */
export interface TerminalEventView {
  id: string;
  seq: number;
  type: string;
  revision: number;
  payload: string;
}

/**
 * Recovery of an operation: a finished one is replayed; an unfinished one
 * is settled from its terminal events (exactly one: committed; none: not committed; several:
 * ambiguous and refused). It never runs the tool again.
 */
export type RecoveryDecision =
  | { kind: "replay"; entry: OperationTable }
  | { kind: "committed"; entry: OperationTable; terminal: TerminalEventView }
  | { kind: "not_committed"; entry: OperationTable }
  | { kind: "ambiguous"; entry: OperationTable; terminals: readonly TerminalEventView[] };

export function decideRecovery(
  entry: OperationTable,
  terminals: readonly TerminalEventView[],
): RecoveryDecision {
  if (entry.status === "finished") return { kind: "replay", entry };
  if (terminals.length === 0) return { kind: "not_committed", entry };
  const [only] = terminals;
  if (terminals.length === 1 && only !== undefined) {
    return { kind: "committed", entry, terminal: only };
  }
  return { kind: "ambiguous", entry, terminals };
}
