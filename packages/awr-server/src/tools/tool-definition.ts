import type { z } from "zod";

/** The ledger method names from TOOLS.md, one per project tool. */
export type LedgerMethod =
  | "projectStatus"
  | "workReady"
  | "workGet"
  | "contextCompile"
  | "search"
  | "workTransition"
  | "eventAppend"
  | "evidenceRecord"
  | "sessionStart"
  | "sessionGet"
  | "sessionList"
  | "sessionCheckpoint"
  | "sessionClaim"
  | "sessionEnd"
  | "sessionResume"
  | "sessionWait"
  | "sessionReply"
  | "operationGet"
  | "operationRecover"
  | "sourceReindex";

/**
 * One AWR project tool. `shape` holds the tool's own arguments; the server adds `project`
 * (shared HTTP), `expected_revision` and `request_id` (writes) according to the transport.
 */
export interface ProjectToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly kind: "read" | "write";
  readonly method: LedgerMethod;
  readonly shape: z.ZodRawShape;
  /** Only awr_work_transition may discard state (cancel, reopen). */
  readonly destructive?: boolean;
}
