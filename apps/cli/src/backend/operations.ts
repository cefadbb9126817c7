/**
 * Every AWR operation the CLI shares with the MCP tools (packages/awr-ledger/TOOLS.md): its tool
 * name, its ledger method and whether it writes. Under `--json` the CLI prints exactly what the
 * tool returns as structuredContent, so both go through this one table.
 */
export const OPERATIONS = {
  projectStatus: { tool: "awr_project_status", kind: "read" },
  workReady: { tool: "awr_work_ready", kind: "read" },
  workGet: { tool: "awr_work_get", kind: "read" },
  contextCompile: { tool: "awr_context_compile", kind: "read" },
  search: { tool: "awr_search", kind: "read" },
  workTransition: { tool: "awr_work_transition", kind: "write" },
  eventAppend: { tool: "awr_event_append", kind: "write" },
  evidenceRecord: { tool: "awr_evidence_record", kind: "write" },
  sessionStart: { tool: "awr_session_start", kind: "write" },
  sessionGet: { tool: "awr_session_get", kind: "read" },
  sessionList: { tool: "awr_session_list", kind: "read" },
  sessionCheckpoint: { tool: "awr_session_checkpoint", kind: "write" },
  sessionClaim: { tool: "awr_session_claim", kind: "write" },
  sessionEnd: { tool: "awr_session_end", kind: "write" },
  sessionResume: { tool: "awr_session_resume", kind: "write" },
  sessionWait: { tool: "awr_session_wait", kind: "write" },
  sessionReply: { tool: "awr_session_reply", kind: "write" },
  operationGet: { tool: "awr_operation_get", kind: "read" },
  operationRecover: { tool: "awr_operation_recover", kind: "write" },
  sourceReindex: { tool: "awr_source_reindex", kind: "write" },
} as const;

export type OperationName = keyof typeof OPERATIONS;

/** Tool arguments / ledger input: snake_case names as TOOLS.md lists them. */
export type OperationInput = Record<string, unknown>;

/** The domain JSON of a result; every one carries `project_revision`. */
export type OperationResult = Record<string, unknown>;

export function isWrite(operation: OperationName): boolean {
  return OPERATIONS[operation].kind === "write";
}
