import { findOperation, type ToolName } from "@awr/awr-ledger/catalog";
import { type Ledger, openLedger, StaleChecker } from "@awr/awr-ledger/open";
import {
  type CallOptions,
  LOCAL_CLIENT,
  type OperationBackend,
  type OperationInput,
  type OperationResult,
  revisionOf,
} from "./backend.js";

export interface SourceRow {
  path: string;
  domain: string;
  role: string;
  adapter: string;
  fingerprint: string;
  entity_count: number;
  indexed_revision: number;
}

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

  static async open(
    root: string,
    options: { env: Readonly<Record<string, string | undefined>>; signal?: AbortSignal },
  ): Promise<LocalBackend> {
    const ledger = await openLedger({
      root,
      env: options.env as NodeJS.ProcessEnv,
      signal: options.signal,
    });
    return new LocalBackend(ledger);
  }

  call(tool: ToolName, input: OperationInput, options: CallOptions = {}): Promise<OperationResult> {
    const read = findOperation(tool)?.kind === "read";
    return this.ledger.execute(
      tool,
      input,
      { client: LOCAL_CLIENT },
      { ...options, refresh: read },
    );
  }

  async currentRevision(options: CallOptions & { refresh?: boolean } = {}): Promise<number> {
    const { refresh, ...callOptions } = options;
    if (refresh === false) return this.revision();
    return revisionOf(await this.call("awr_project_status", {}, callOptions));
  }

  /** The indexed sources, in manifest order, with the manifest's role for each. */
  async sources(): Promise<SourceRow[]> {
    const rows = await this.ledger.store.read((db) =>
      db.selectFrom("sources").selectAll().execute(),
    );
    const byPath = new Map(rows.map((row) => [row.path, row]));
    return this.ledger.manifest.sources.map((source) => {
      const row = byPath.get(source.path);
      return {
        path: source.path,
        domain: source.domain,
        role: source.role,
        adapter: source.adapter,
        fingerprint: row?.fingerprint ?? "",
        entity_count: Number(row?.entity_count ?? 0),
        indexed_revision: Number(row?.indexed_revision ?? 0),
      };
    });
  }

  /** Paths changed since the last index (the manifest included); reads files, writes nothing. */
  changedPaths(): Promise<string[]> {
    return new StaleChecker().changedPaths(this.ledger.store, this.ledger.root);
  }

  revision(): Promise<number> {
    return this.ledger.store.currentRevision();
  }

  close(): Promise<void> {
    return this.ledger.close();
  }
}
