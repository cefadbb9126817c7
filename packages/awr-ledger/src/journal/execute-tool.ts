import type { CallOptions, RuntimeCaller } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";

/**
 * The MCP tool name of every ledger operation (TOOLS.md) and the ledger method that implements
 * it. `awr_projects_list` is the server's own and is not here.
 */
export const TOOL_METHODS = {
  awr_project_status: "projectStatus",
  awr_work_ready: "workReady",
  awr_work_get: "workGet",
  awr_context_compile: "contextCompile",
  awr_search: "search",
  awr_work_transition: "workTransition",
  awr_event_append: "eventAppend",
  awr_evidence_record: "evidenceRecord",
  awr_session_start: "sessionStart",
  awr_session_get: "sessionGet",
  awr_session_list: "sessionList",
  awr_session_checkpoint: "sessionCheckpoint",
  awr_session_claim: "sessionClaim",
  awr_session_end: "sessionEnd",
  awr_session_resume: "sessionResume",
  awr_session_wait: "sessionWait",
  awr_session_reply: "sessionReply",
  awr_operation_get: "operationGet",
  awr_operation_recover: "operationRecover",
  awr_source_reindex: "sourceReindex",
} as const;

export type LedgerToolName = keyof typeof TOOL_METHODS;
export type LedgerMethodName = (typeof TOOL_METHODS)[LedgerToolName];

/** The write tools (`*` in TOOLS.md): they take expected_revision and request_id. */
export const WRITE_TOOLS: readonly LedgerToolName[] = [
  "awr_work_transition",
  "awr_event_append",
  "awr_evidence_record",
  "awr_session_start",
  "awr_session_checkpoint",
  "awr_session_claim",
  "awr_session_end",
  "awr_session_resume",
  "awr_session_wait",
  "awr_session_reply",
  "awr_operation_recover",
  "awr_source_reindex",
];

export function isLedgerTool(name: string): name is LedgerToolName {
  return Object.hasOwn(TOOL_METHODS, name);
}

type LedgerMethod = (input: never, caller: RuntimeCaller, options?: CallOptions) => Promise<object>;

/** Anything that implements the ledger methods (the Ledger facade does). */
export type ToolTarget = { [M in LedgerMethodName]?: LedgerMethod };

/**
 * Generic entry point for the server and the CLI: runs tool `tool` with its input (without
 * `project`) for `caller`. An unknown tool is `Unsupported` (the server answers it with a
 * JSON-RPC -32601 before getting here); errors are the methods' own LedgerErrors.
 */
export async function executeTool(
  target: ToolTarget,
  tool: string,
  input: unknown,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<Record<string, unknown>> {
  if (!isLedgerTool(tool)) {
    throw new LedgerError("Unsupported", `unknown tool ${tool}`, { tool });
  }
  const method = target[TOOL_METHODS[tool]];
  if (method === undefined) {
    throw new LedgerError("Unsupported", `this ledger does not implement ${tool}`, { tool });
  }
  const call = method as (i: unknown, c: RuntimeCaller, o?: CallOptions) => Promise<object>;
  return (await call.call(target, input ?? {}, caller, options)) as Record<string, unknown>;
}
