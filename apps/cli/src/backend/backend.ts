import type { ToolName } from "@awr/awr-ledger";
import { CLI_ERROR_CODES, CliError } from "../cli-error.js";

/** Tool arguments, by the tool's own names. */
export type OperationInput = Record<string, unknown>;

/** A tool's answer: the same JSON as its structuredContent; every one carries project_revision. */
export type OperationResult = Record<string, unknown>;

/** The ledger client id of the local CLI, as of the stdio server (TOOLS.md). */
export const LOCAL_CLIENT = "stdio";

/** The variable `--token-env` defaults to. */
export const DEFAULT_TOKEN_ENV = "AWR_TOKEN";

/** The `project_revision` every result carries. */
export function revisionOf(result: OperationResult): number {
  const revision = result["project_revision"];
  if (typeof revision !== "number") {
    throw new CliError(
      CLI_ERROR_CODES.Internal,
      "The status carries no project_revision; pass --expected-revision.",
    );
  }
  return revision;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** `context compile --branch ID`: a local ledger's call option (no tool argument says it). */
  contextBranch?: string;
  /** `status --queue Q --offset N --page-size N`: one action-view queue, page by page. */
  statusQueue?: string;
  statusOffset?: number;
  statusPageSize?: number;
  /** `status|ready|work show --cached`: the last recorded projection, sources not checked. */
  cachedProjection?: boolean;
  /**
   * A local read refreshes changed sources first unless this is false (`host status` and the
   * other change lookups read only their journal, and write nothing). Remote: moot.
   */
  refresh?: boolean;
}

/**
 * Where the CLI's tools run: the project's own ledger (local) or a shared service over MCP
 * (remote). Both return the same domain JSON and throw CliError with the domain code.
 */
export interface OperationBackend {
  readonly kind: "local" | "remote";
  /**
   * Runs one catalog tool. Reads see fresh sources where the backend can refresh them (local);
   * writes must already carry `expected_revision` (and, remotely, `request_id`).
   */
  call(tool: ToolName, input: OperationInput, options?: CallOptions): Promise<OperationResult>;
  /**
   * The project's current revision, read just before a write that was given none. With
   * `refresh` (the default) a local backend first reindexes changed sources, as reads do.
   */
  currentRevision(options?: CallOptions & { refresh?: boolean }): Promise<number>;
  /** Releases the database or the connection; idempotent. */
  close(): Promise<void>;
}
