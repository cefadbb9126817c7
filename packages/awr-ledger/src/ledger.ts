import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AdmittedInput } from "./catalog/admit-arguments.js";
import type { ToolInput, ToolName, ToolOutput } from "./catalog/catalog.js";
import { runAdmitted, runOperation } from "./catalog/dispatch.js";
import type { OperationHost, OperationOptions } from "./catalog/operation.js";
import type { RuntimeCaller, RuntimeContext } from "./core/runtime-context.js";
import { isLedgerError, LedgerError } from "./errors.js";
import { throwIfAborted, untilClosed } from "./internal/abort.js";
import type { LedgerContext } from "./project/ledger-context.js";
import {
  type DatabaseInput,
  openProjectDatabase,
  projectDatabaseFile,
} from "./project/project-storage.js";
import { indexSources, refreshSources } from "./projection/index-sources.js";
import { StaleChecker } from "./projection/stale-check.js";
import type { Manifest } from "./sources/manifest.js";
import { loadManifest, MANIFEST_PATH } from "./sources/read-sources.js";
import { LedgerStore } from "./storage/ledger-store.js";
import { rememberLedgerStore } from "./storage/ledger-store-of.js";
import { migrateToLatest } from "./storage/migrator.js";
import { createYamlWriteBack } from "./work/yaml-work-write-back.js";

/** Who is calling: `"stdio"` for the stdio server and the local CLI. */
export type Caller = RuntimeCaller;

/** Call options: the signal, and `refresh` for reads that reindex changed sources first. */
export type CallOptions = OperationOptions;

const STDIO: Caller = { client: "stdio" };

/** A tool's answer: what its implementation returns, with `ok` (and, for reads, the policy). */
export type ToolResult<T extends ToolName> = ToolOutput<T> & { ok: true } & Record<string, unknown>;

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

export type { LedgerSource } from "./read/source-list.js";

export const LOCK_LEASE_MS_RANGE = { min: 100, max: 86_400_000 } as const;

/**
 * An open project: every catalog operation by its tool name (`call` typed, `execute` for
 * callers that hold a name and arguments from the wire), the CLI-only ones included (context
 * bootstrap, work list, the journal listing, source list and scan), plus two helpers
 * (changedPaths, revision). Implementations load on first use, so a process that answers one
 * read loads only what it needs.
 */
export class Ledger {
  readonly context: LedgerContext;
  readonly #store: LedgerStore;
  readonly #host: OperationHost;
  readonly #close: () => Promise<void>;
  #closed = false;

  constructor(context: LedgerContext, store: LedgerStore, close: () => Promise<void>) {
    const runtime: RuntimeContext = {
      store,
      root: context.root,
      now: () => Date.now(),
      writeBack: createYamlWriteBack(context.root),
    };
    this.context = context;
    this.#store = store;
    rememberLedgerStore(this, store);
    this.#host = { runtime, project: context };
    this.#close = close;
  }

  get root(): string {
    return this.context.root;
  }
  get projectId(): string {
    return this.context.projectId;
  }
  get manifest(): Manifest {
    return this.context.manifest().manifest;
  }

  /** Runs a catalog tool with typed arguments; the caller defaults to the stdio client. */
  call<T extends ToolName>(
    tool: T,
    input: ToolInput<T>,
    caller: Caller = STDIO,
    options?: CallOptions,
  ): Promise<ToolResult<T>> {
    return runOperation(this.#host, tool, input, caller, options) as Promise<ToolResult<T>>;
  }

  /**
   * Runs a tool by name with arguments as they came (the CLI's path). An unknown tool is
   * Unsupported; the arguments pass the gate (admitArguments) against the tool's schema.
   */
  execute(
    tool: string,
    input: unknown,
    caller: Caller = STDIO,
    options?: CallOptions,
  ): Promise<Record<string, unknown>> {
    return runOperation(this.#host, tool, input, caller, options);
  }

  /**
   * Runs a tool by name on arguments the caller's gate admitted (the MCP server's path: it
   * admits them against the tool's schema for its transport), without checking them again.
   */
  executeAdmitted(
    tool: string,
    input: AdmittedInput,
    caller: Caller = STDIO,
    options?: CallOptions,
  ): Promise<Record<string, unknown>> {
    return runAdmitted(this.#host, tool, input, caller, options);
  }

  // revision and changedPaths stay helpers, not catalog operations: neither is something a
  // person asks for, and each answers one bare value with no source check, no refresh and no
  // envelope, which is what their callers need. The CLI checks a write's --expected-revision
  // against revision() before anything else is read (a reindex first would spend the very
  // revision being checked); changedPaths is the cheap stat-first question a refresh asks. What a
  // person asks for is in the catalog: awr_project_status answers the revision after the source
  // check, awr_source_scan the changed paths with the reindex's refusals.

  /** Paths changed since the last index (the manifest included); reads files, writes nothing. */
  changedPaths(): Promise<string[]> {
    return new StaleChecker().changedPaths(this.#store, this.root, this.manifest);
  }

  /** The project revision as stored now (no refresh). */
  revision(): Promise<number> {
    return this.#store.currentRevision();
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

/**
 * SourceStale with what a host needs to fix it without guessing: the current project_revision
 * and the exact next call, as a tool call and as a CLI command.
 */
function withReindexFix(error: LedgerError, revision: number): LedgerError {
  return new LedgerError(
    "SourceStale",
    `${error.message.replace(/\s*Run `awr source reindex`.*$/s, "")} Reindex with awr_source_reindex (expected_revision ${revision}), then read again.`,
    {
      ...error.details,
      project_revision: revision,
      next: { tool: "awr_source_reindex", arguments: { expected_revision: revision } },
      cli: `awr source reindex --expected-revision ${revision}`,
    },
    { cause: error },
  );
}

/**
 * NotFound for a root that is not initialised: what it lacks, that nothing was created, and the
 * command that initialises it.
 */
function notInitialised(root: string, lacks: string): LedgerError {
  return new LedgerError(
    "NotFound",
    `${root} is not an initialised AWR project: ${lacks}. Run \`awr init --accept\` there; nothing was created.`,
    { root },
    {
      next: `Run \`awr init --accept\` in ${root} to create its ledger (without --accept it previews, writing nothing).`,
    },
  );
}

/**
 * Opens an initialised project: reads `.awr/project.toml`, opens its storage (or the given
 * database), applies pending migrations (refusing a ledger newer than this code) and checks the
 * project identity exists. NotFound means exactly that the root is not initialised (no manifest;
 * no `.awr/state.db` for a SQLite project, as in a fresh clone where only the manifest is
 * committed; or a database without the project identity); opening creates nothing then, so a
 * read of an uninitialised project leaves it as it was.
 */
export async function openLedger(options: OpenLedgerOptions): Promise<Ledger> {
  throwIfAborted(options.signal);
  checkLockLeaseMs(options.lockLeaseMs);
  const root = resolve(options.root);
  if (!existsSync(join(root, MANIFEST_PATH))) {
    throw notInitialised(root, `it has no ${MANIFEST_PATH}`);
  }
  let loaded = loadManifest(root);
  // SQLite creates a missing database file on open: only `awr init --accept` may create it.
  const file = projectDatabaseFile(root, loaded.manifest, options.database);
  if (file !== undefined && !existsSync(file)) {
    throw notInitialised(
      root,
      `it has ${MANIFEST_PATH} but no ledger database (.awr/state.db), as in a fresh clone`,
    );
  }
  const opened = await openProjectDatabase(root, loaded.manifest, options.database, options.env);
  try {
    await migrateToLatest(opened.db, opened.dialect);
    const state = await opened.db.selectFrom("project_state").selectAll().executeTakeFirst();
    if (state === undefined) throw notInitialised(root, "its ledger has no project identity");
    const store = new LedgerStore(opened.db, opened.dialect, state.project_id, {
      lockLeaseMs: options.lockLeaseMs,
    });
    const stale = new StaleChecker();
    const lifetime = new AbortController();
    const reloadManifest = () => {
      loaded = loadManifest(root);
      return loaded;
    };
    const context: LedgerContext = {
      root,
      projectId: state.project_id,
      projectName: state.name,
      manifest: (reload) => (reload === true ? reloadManifest() : loaded),
      closing: lifetime.signal,
      async reindex(o = {}) {
        return indexSources(store, root, reloadManifest(), {
          ...o,
          signal: untilClosed(o.signal, lifetime.signal),
        });
      },
      async ensureFresh(o = {}) {
        if (o.refresh === true) {
          // The stat-and-fingerprint check first (what a read without refresh asks): nothing
          // changed, nothing to read, parse or reindex, which is the common case of a write.
          if ((await stale.changedPaths(store, root, loaded.manifest)).length === 0) return false;
          await refreshSources(store, root, reloadManifest(), {
            client: o.client,
            signal: untilClosed(o.signal, lifetime.signal),
          });
          return true;
        }
        try {
          await stale.assertFresh(store, root, loaded.manifest);
          return false;
        } catch (error) {
          throw isLedgerError(error, "SourceStale")
            ? withReindexFix(error, await store.currentRevision())
            : error;
        }
      },
    };
    return new Ledger(context, store, async () => {
      lifetime.abort(
        new LedgerError(
          "Unsupported",
          `The ledger of ${root} was closed; open it again to continue.`,
        ),
      );
      await opened.close();
    });
  } catch (error) {
    await opened.close();
    throw error;
  }
}
