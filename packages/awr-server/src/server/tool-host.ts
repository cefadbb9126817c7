import type { CallLimiter } from "../internal/call-limiter.js";
import type { LedgerCaller, LedgerPort } from "../ledger-port.js";
import type { ServerMode } from "../tools/tool-catalog.js";

/** A project a call may use: its open ledger and canonical root. */
export interface ResolvedProject {
  readonly ledger: LedgerPort;
  readonly root: string;
}

/**
 * Everything one MCP server instance needs to answer tool calls for one caller. The stdio
 * server has one fixed project; the HTTP service builds a host per request from the registry
 * client that authenticated it.
 */
export interface ToolHost {
  readonly mode: ServerMode;
  readonly caller: LedgerCaller;
  readonly limiter: CallLimiter;
  /**
   * Finds the project for a call and checks access and identity. `key` is the `project`
   * argument (undefined on stdio); `tool` is the project tool about to run (the shared service
   * refuses it on a project that serves workstreams). Rejects with an AwrToolError
   * (RuleViolation "project access denied", NotFound for an uninitialised stdio project, and
   * so on) or the ledger's Unsupported.
   */
  resolveProject(
    key: string | undefined,
    access: "read" | "write",
    options?: { signal?: AbortSignal; tool?: string },
  ): Promise<ResolvedProject>;
  /** awr_projects_list (shared HTTP only). */
  listProjects?(): Record<string, unknown>;
  /**
   * awr_workstream (registry version 2 only): the ledger's workstream read, whose result is the
   * original's envelope; `ok: false` (an incomplete context) is served as an error result.
   */
  workstream?(args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
  /** Diagnostics for stderr; never stdout. */
  log?(line: string): void;
}
