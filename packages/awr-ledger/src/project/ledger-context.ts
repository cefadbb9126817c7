import type { ReindexResult } from "../projection/index-sources.js";
import type { LoadedManifest } from "../sources/read-sources.js";

/** The project behind a ledger: its root, manifest and source freshness. */
export interface LedgerContext {
  readonly root: string;
  readonly projectId: string;
  readonly projectName: string;
  /** The manifest as last loaded; `reload` reads `.awr/project.toml` again first. */
  manifest(reload?: boolean): LoadedManifest;
  /**
   * Aborted when the ledger is closed: a reindex in progress (a large source being parsed)
   * stops then, so closing, and a process's shutdown, never wait for a parse to finish.
   */
  readonly closing?: AbortSignal | undefined;
  /**
   * Throws SourceStale (with the current project_revision and the fix) unless `refresh`, in which
   * case it reindexes changed sources first (unjournaled, see `reindex`). True when it reindexed.
   */
  ensureFresh(options?: {
    refresh?: boolean;
    client?: string;
    signal?: AbortSignal;
  }): Promise<boolean>;
  /** Reindexes changed sources without the request journal (the CLI's refresh, init). */
  reindex(options?: {
    force?: boolean;
    expected_revision?: number;
    client?: string;
    signal?: AbortSignal;
  }): Promise<ReindexResult>;
}
