import { findOperation, type ToolName } from "@awr/awr-ledger/catalog";
import { type Ledger, type LedgerSource, openLedger } from "@awr/awr-ledger/open";
import { CLI_ERROR_CODES, CliError } from "../cli-error.js";
import {
  type CallOptions,
  LOCAL_CLIENT,
  type OperationBackend,
  type OperationInput,
  type OperationResult,
  revisionOf,
} from "./backend.js";

export type SourceRow = LedgerSource;

/**
 * Runs operations on the project's own ledger, as client `stdio`. Reads pass `refresh: true`:
 * a person at a terminal expects the answer to reflect the files as they are now, so changed
 * sources are reindexed first (which spends a revision only when something changed).
 */
export class LocalBackend implements OperationBackend {
  readonly kind = "local";
  readonly ledger: Ledger;

  private constructor(ledger: Ledger) {
    this.ledger = ledger;
  }

  /**
   * Opens the project's ledger, creating nothing. A project that is not initialised (openLedger's
   * NotFound: a fresh clone holds `.awr/project.toml` but no ledger yet) is the CLI's
   * NotInitialised, like a directory without a manifest: the fix is `awr init --accept`.
   */
  static async open(
    root: string,
    options: { env: Readonly<Record<string, string | undefined>>; signal?: AbortSignal },
  ): Promise<LocalBackend> {
    try {
      const ledger = await openLedger({
        root,
        env: options.env as NodeJS.ProcessEnv,
        signal: options.signal,
      });
      return new LocalBackend(ledger);
    } catch (error) {
      const { name, code, details, next } = error as {
        name?: unknown;
        code?: unknown;
        details?: Record<string, unknown>;
        next?: string;
      };
      if (name !== "LedgerError" || code !== "NotFound") throw error;
      throw new CliError(CLI_ERROR_CODES.NotInitialised, (error as Error).message, {
        cause: error,
        ...(details === undefined ? {} : { details }),
        ...(next === undefined ? {} : { next }),
      });
    }
  }

  call(tool: ToolName, input: OperationInput, options: CallOptions = {}): Promise<OperationResult> {
    const read = findOperation(tool)?.kind === "read";
    return this.ledger.execute(
      tool,
      input,
      { client: LOCAL_CLIENT },
      // The command line's files are bounded one by one as they are read (command-input.ts).
      { ...options, refresh: read && options.refresh !== false, argumentsFrom: "files" },
    );
  }

  async currentRevision(options: CallOptions & { refresh?: boolean } = {}): Promise<number> {
    const { refresh, ...callOptions } = options;
    if (refresh === false) return this.revision();
    return revisionOf(await this.call("awr_project_status", { view: "full" }, callOptions));
  }

  /** Paths changed since the last index (the manifest included); reads files, writes nothing. */
  changedPaths(): Promise<string[]> {
    return this.ledger.changedPaths();
  }

  revision(): Promise<number> {
    return this.ledger.revision();
  }

  close(): Promise<void> {
    return this.ledger.close();
  }
}
