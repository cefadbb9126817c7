import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  type ContextCompileInput,
  type ContextCompileResult,
  compileContext,
} from "./context/compile-context.js";
import type { RuntimeContext } from "./core/runtime-context.js";
import { LedgerError } from "./errors.js";
import { throwIfAborted } from "./internal/abort.js";
import type { WriteReceipt } from "./journal/run-write.js";
import { type DatabaseInput, openProjectDatabase } from "./project-storage.js";
import { indexSources, type ReindexResult, refreshSources } from "./projection/index-sources.js";
import type { SourceReindexInput } from "./projection/source-reindex.js";
import { StaleChecker } from "./projection/stale-check.js";
import { type ProjectStatusResult, projectStatus } from "./read/project-status.js";
import type { SearchInput, SearchResult } from "./read/search.js";
import type { WorkGetInput, WorkGetResult } from "./read/work-get.js";
import type { WorkReadyInput, WorkReadyResult } from "./read/work-ready.js";
import { createLedgerRuntime } from "./runtime/ledger-runtime.js";
import { RuntimeMethods } from "./runtime/runtime-methods.js";
import { createYamlWriteBack } from "./runtime/yaml-work-write-back.js";
import type { Manifest } from "./sources/manifest.js";
import { type LoadedManifest, loadManifest, MANIFEST_PATH } from "./sources/read-sources.js";
import { LedgerStore } from "./storage/ledger-store.js";
import { migrateToLatest } from "./storage/migrator.js";

/** Who is calling: `"stdio"` for the stdio server and the local CLI. */
export interface Caller {
  client: string;
}

export interface ReadOptions {
  signal?: AbortSignal | undefined;
  /** Reindex changed sources first instead of answering SourceStale (the CLI's reads). */
  refresh?: boolean | undefined;
}

export interface WriteOptions {
  signal?: AbortSignal | undefined;
}

export type { SourceReindexInput } from "./projection/source-reindex.js";

export interface OpenLedgerOptions {
  root: string;
  /** Use this Kysely instance or dialect instead of the manifest's storage (not destroyed by close unless a dialect). */
  database?: DatabaseInput | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  signal?: AbortSignal | undefined;
  /**
   * SQLite only: how long, in milliseconds, the cross-process project-lock lease lasts before
   * another process may take it over (renewed every third of it while held). Integer from 100 to
   * 86 400 000; default 30 000. A holder on this machine that dies is taken over at once whatever
   * this is; the lease length only bounds the wait after a holder on ANOTHER host (a network
   * filesystem) or an unprovable death. Ignored on PostgreSQL (advisory locks end with the session).
   */
  lockLeaseMs?: number | undefined;
}

export const LOCK_LEASE_MS_RANGE = { min: 100, max: 86_400_000 } as const;

/**
 * What per-operation modules need: the store (db, backend, project id, locks), the root, the
 * manifest loader and the freshness guard. Part 2's runtime and journal modules take this.
 */
export interface LedgerContext {
  readonly root: string;
  readonly store: LedgerStore;
  readonly projectId: string;
  readonly projectName: string;
  /** The manifest as last loaded; `reload` reads `.awr/project.toml` again first. */
  manifest(reload?: boolean): LoadedManifest;
  /**
   * Throws SourceStale unless `refresh`, in which case it reindexes changed sources first
   * (unjournaled: a local convenience of the CLI's reads, see `reindex`).
   */
  ensureFresh(options?: ReadOptions & { client?: string }): Promise<void>;
  /**
   * Reindexes changed sources WITHOUT the request journal (no request_id, no replay): the local
   * path behind `{ refresh: true }` reads and init. The write tool is `Ledger.sourceReindex`.
   */
  reindex(options?: {
    force?: boolean;
    expected_revision?: number;
    client?: string;
    signal?: AbortSignal;
  }): Promise<ReindexResult>;
}

/**
 * The ledger facade. Operations a process may never call (the reads other than projectStatus,
 * the journaled reindex, and every runtime write, see createLedgerRuntime) load their modules on
 * first use, so opening a ledger to answer one read (`awr status`) loads only what it needs.
 */
export class Ledger extends RuntimeMethods {
  readonly context: LedgerContext;
  readonly #runtime: RuntimeContext;
  readonly #close: () => Promise<void>;
  #closed = false;

  constructor(context: LedgerContext, close: () => Promise<void>) {
    const runtime: RuntimeContext = {
      store: context.store,
      now: () => Date.now(),
      writeBack: createYamlWriteBack(context.root),
    };
    super(createLedgerRuntime(runtime));
    this.#runtime = runtime;
    this.context = context;
    this.#close = close;
  }

  get root(): string {
    return this.context.root;
  }
  get projectId(): string {
    return this.context.projectId;
  }
  get store(): LedgerStore {
    return this.context.store;
  }
  get manifest(): Manifest {
    return this.context.manifest().manifest;
  }

  async #read<T>(
    options: ReadOptions | undefined,
    caller: Caller | undefined,
    fn: (revision: number) => Promise<T>,
  ): Promise<T> {
    throwIfAborted(options?.signal);
    await this.context.ensureFresh({ ...options, client: caller?.client });
    return this.store.read(async (db) => fn(await this.store.currentRevision(db)), options);
  }

  async projectStatus(
    _input: Record<string, never> = {},
    caller?: Caller,
    options?: ReadOptions,
  ): Promise<ProjectStatusResult> {
    return this.#read(options, caller, (revision) =>
      projectStatus(
        this.store.db,
        { id: this.projectId, name: this.context.projectName },
        revision,
      ),
    );
  }

  async workReady(
    input: WorkReadyInput = {},
    caller?: Caller,
    options?: ReadOptions,
  ): Promise<WorkReadyResult> {
    checkLimit(input.limit);
    return this.#read(options, caller, async (revision) => {
      const { workReady } = await import("./read/work-ready.js");
      return workReady(this.store.db, input, revision);
    });
  }

  async workGet(
    input: WorkGetInput,
    caller?: Caller,
    options?: ReadOptions,
  ): Promise<WorkGetResult> {
    return this.#read(options, caller, async (revision) => {
      const { workGet } = await import("./read/work-get.js");
      return workGet(this.store.db, input, revision);
    });
  }

  async search(input: SearchInput, caller?: Caller, options?: ReadOptions): Promise<SearchResult> {
    checkLimit(input.limit);
    return this.#read(options, caller, async (revision) => {
      const { search } = await import("./read/search.js");
      return search(this.store.db, this.store.backend, input, revision);
    });
  }

  async contextCompile(
    input: ContextCompileInput,
    caller: Caller = { client: "stdio" },
    options?: ReadOptions,
  ): Promise<ContextCompileResult> {
    return this.#read(options, caller, (revision) =>
      compileContext(this.store.db, input, {
        client: caller.client,
        revision,
        projectName: this.context.projectName,
      }),
    );
  }

  /**
   * awr_source_reindex, a journaled write (request_id, replay, expected_revision) like every
   * other: a revision is spent only when something changed; when nothing did, the request is
   * recorded as finished at the current revision, with `reindexed: false` and no terminal event.
   */
  async sourceReindex(
    input: SourceReindexInput,
    caller: Caller = { client: "stdio" },
    options?: WriteOptions,
  ): Promise<ReindexResult & WriteReceipt> {
    const { context } = this;
    const { sourceReindex } = await import("./projection/source-reindex.js");
    return sourceReindex(
      this.#runtime,
      { root: context.root, loadManifest: () => context.manifest(true) },
      input,
      caller,
      options,
    );
  }

  /** Closes what openLedger opened. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#close();
  }
}

function checkLockLeaseMs(value: number | undefined): void {
  const { min, max } = LOCK_LEASE_MS_RANGE;
  if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) {
    throw new LedgerError(
      "InvalidInput",
      `lockLeaseMs must be an integer number of milliseconds from ${min} to ${max}; got ${String(value)}.`,
      { field: "lockLeaseMs" },
    );
  }
}

function checkLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw new LedgerError(
      "InvalidInput",
      `limit must be an integer from 1 to 100; got ${String(limit)}.`,
    );
  }
}

/**
 * Opens an initialised project: reads `.awr/project.toml`, opens its storage (or the given
 * database), applies pending migrations (refusing a ledger newer than this code) and checks the
 * project identity exists.
 */
export async function openLedger(options: OpenLedgerOptions): Promise<Ledger> {
  throwIfAborted(options.signal);
  checkLockLeaseMs(options.lockLeaseMs);
  const root = resolve(options.root);
  if (!existsSync(join(root, MANIFEST_PATH))) {
    throw new LedgerError(
      "NotFound",
      `${root} is not an AWR project (no ${MANIFEST_PATH}); run \`awr init --accept\` there first.`,
      { root },
    );
  }
  let loaded = loadManifest(root);
  const opened = await openProjectDatabase(root, loaded.manifest, options.database, options.env);
  try {
    await migrateToLatest(opened.db, opened.backend);
    const state = await opened.db.selectFrom("project_state").selectAll().executeTakeFirst();
    if (state === undefined) {
      throw new LedgerError(
        "NotFound",
        `The ledger of ${root} has no project identity; run \`awr init --accept\` there.`,
        { root },
      );
    }
    const store = new LedgerStore(opened.db, opened.backend, state.project_id, {
      lockLeaseMs: options.lockLeaseMs,
    });
    const stale = new StaleChecker();
    const reloadManifest = () => {
      loaded = loadManifest(root);
      return loaded;
    };
    const context: LedgerContext = {
      root,
      store,
      projectId: state.project_id,
      projectName: state.name,
      manifest: (reload) => (reload === true ? reloadManifest() : loaded),
      async reindex(o = {}) {
        return indexSources(store, root, reloadManifest(), o);
      },
      async ensureFresh(o = {}) {
        if (o.refresh === true) {
          await refreshSources(store, root, reloadManifest(), {
            client: o.client,
            signal: o.signal,
          });
          return;
        }
        await stale.assertFresh(store, root);
      },
    };
    return new Ledger(context, opened.close);
  } catch (error) {
    await opened.close();
    throw error;
  }
}
