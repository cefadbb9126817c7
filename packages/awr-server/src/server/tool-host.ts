import type { ServerMode } from "@awr/awr-ledger";
import type { ToolExposure } from "@awr/awr-ledger/catalog";
import type { WorkstreamAccess } from "@awr/awr-ledger/workstreams";
import type { CallLimiter } from "../internal/call-limiter.js";
import type { LedgerCaller, LedgerPort } from "../ledger-port.js";

/** A project a call may use: its open ledger and canonical root. */
export interface ResolvedProject {
  readonly ledger: LedgerPort;
  readonly root: string;
  /** The caller's workstream grants on it (shared service, registry v2); none: undefined. */
  readonly workstreamAccess?: WorkstreamAccess | undefined;
  /**
   * The error a call on this project answers for `error` thrown by its ledger (the shared
   * service turns SourceStale's reindex hint into one this caller can follow); absent: as thrown.
   */
  readonly explain?: (error: unknown) => unknown;
}

export interface ResolveOptions {
  signal?: AbortSignal;
  /** The tool about to run. */
  tool?: string;
  /**
   * The call is a workstream read (awr_workstream): it needs no project grant of its own and is
   * not refused by the workstream boundary that bounds every other project tool.
   */
  workstreamRead?: boolean;
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
   * argument (undefined on stdio). Rejects with an AwrToolError (RuleViolation "project access
   * denied", NotFound for an uninitialised stdio project, and so on) or, over the shared
   * service, the ledger's Unsupported for a project tool where workstreams bound the project.
   */
  resolveProject(
    key: string | undefined,
    access: "read" | "write",
    options?: ResolveOptions,
  ): Promise<ResolvedProject>;
  /** awr_projects_list (shared HTTP only). */
  listProjects?(): Record<string, unknown>;
  /**
   * What tools/list shows: the domain tools (`grouped`) or every tool by name (`flat`). Absent:
   * as the environment says (AWR_MCP_TOOL_EXPOSURE_MODE=flat, else grouped).
   */
  readonly exposure?: ToolExposure;
  /** The registry grants workstreams (version 2): awr_workstream is offered. */
  readonly workstreams?: boolean;
  /** Diagnostics for stderr; never stdout. */
  log?(line: string): void;
}
