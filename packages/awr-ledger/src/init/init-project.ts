import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import { ulid } from "../internal/ulid.js";
import { type DatabaseInput, openProjectDatabase, STATE_DB } from "../project/project-storage.js";
import { indexSources, type ReindexResult } from "../projection/index-sources.js";
import {
  findKeyClash,
  type ParseCache,
  parseCached,
  type ReindexPlan,
} from "../projection/reindex-plan.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import { fingerprintBytes, MISSING_FINGERPRINT } from "../sources/fingerprint.js";
import { type Manifest, parseManifest, renderManifest } from "../sources/manifest.js";
import {
  AWR_DIR,
  type LoadedManifest,
  loadManifest,
  MANIFEST_PATH,
  type ReadSource,
  readManifestFile,
  readManifestSources,
} from "../sources/read-sources.js";
import { isSecretIssue } from "../sources/source-secrets.js";
import { storageDialect } from "../storage/dialects.js";
import { LedgerStore } from "../storage/ledger-store.js";
import { migrateToLatest } from "../storage/migrator.js";
import { discoverManifest, STARTER_LEDGER, STARTER_LEDGER_PATH } from "./discover-sources.js";
import { InitWrites } from "./init-writes.js";

export interface InitProjectOptions {
  root: string;
  /** Path of a manifest file to copy into .awr/project.toml (`awr init --manifest FILE`). */
  manifest?: string | undefined;
  /** false (default): preview only, writes nothing. true: create or confirm the project. */
  accept?: boolean | undefined;
  /** Create a starter work ledger under .awr/intake/ when no work ledger is found (default true). */
  create_starter?: boolean | undefined;
  database?: DatabaseInput | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  signal?: AbortSignal | undefined;
}

export interface InitSourceReport {
  domain: string;
  role: string;
  path: string;
  adapter: string;
  exists: boolean;
  fingerprint: string;
  entity_count: number;
}

export interface InitResult {
  mode: "preview" | "accepted";
  root: string;
  /** null in a preview of a project that was never initialised. */
  project_id: string | null;
  project_revision: number;
  /**
   * True when the project already had its ledger identity before this call (a committed
   * .awr/project.toml alone, as in a fresh clone, is not yet initialised).
   */
  already_initialised: boolean;
  manifest_origin: "file" | "existing" | "discovered";
  manifest: Manifest;
  manifest_toml: string;
  sources: InitSourceReport[];
  issues: SourceIssue[];
  /** sha256 over the manifest text and every source fingerprint: what accept would index. */
  preview_fingerprint: string;
  /** Paths (relative to root) created by this call. */
  created: string[];
  /**
   * With accept: what the indexing of the sources did, as `awr source reindex` reports it, and
   * `ok`: false when a source was held back (it holds a credential)
   * or reported an error. Absent from a preview, which indexes nothing.
   */
  index?: InitIndexReport;
}

export interface InitIndexReport extends ReindexResult {
  ok: boolean;
}

function normalise(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\s+$/, "");
}

/** The manifest text init uses, where it came from, and whether a starter ledger is needed. */
function chooseManifest(
  root: string,
  options: InitProjectOptions,
  existingText: string | undefined,
) {
  if (options.manifest !== undefined) {
    const given = resolve(options.manifest);
    if (!existsSync(given)) {
      throw new LedgerError(
        "NotFound",
        `Manifest file ${given} does not exist; check the --manifest path.`,
        { path: given },
        {
          next: "Check the --manifest path: it is taken relative to the project root (--project DIR, or the current directory), or give it as an absolute path.",
        },
      );
    }
    const { text } = readManifestFile(given, given);
    if (existingText !== undefined && normalise(existingText) !== normalise(text)) {
      throw new LedgerError(
        "SourceConflict",
        `${join(root, MANIFEST_PATH)} already holds a different manifest; edit it in place (then reindex) or remove --manifest.`,
        { path: MANIFEST_PATH },
      );
    }
    return { text, origin: "file" as const, starter: false };
  }
  if (existingText !== undefined)
    return { text: existingText, origin: "existing" as const, starter: false };
  const discovery = discoverManifest(root, options.create_starter !== false);
  return {
    text: renderManifest(discovery.manifest),
    origin: "discovered" as const,
    starter: discovery.starter && !existsSync(join(root, STARTER_LEDGER_PATH)),
  };
}

/**
 * `awr init`: previews the source mapping (writing nothing) or, with accept, creates
 * `.awr/project.toml`, the ledger, the .gitignore entries and the project's permanent ULID, then
 * indexes the sources. Re-running keeps the identity; a different manifest is refused.
 *
 * Atomic: every source is read, parsed and checked (errors, keys defined twice) before anything
 * is written, and a failure after writing began rolls every write back (init-writes.ts), so a
 * refused init leaves the project exactly as it was.
 */
export async function initProject(options: InitProjectOptions): Promise<InitResult> {
  throwIfAborted(options.signal);
  const root = resolve(options.root);
  if (!existsSync(root)) {
    throw new LedgerError(
      "NotFound",
      `Project root ${root} does not exist; create it or pass the right --project.`,
      { root },
      { next: `Create ${root} first, or pass the project's directory as --project DIR.` },
    );
  }
  const manifestFile = join(root, MANIFEST_PATH);
  const existingText = existsSync(manifestFile) ? loadManifest(root).text : undefined;
  const { text, origin, starter } = chooseManifest(root, options, existingText);
  const loaded: LoadedManifest = {
    manifest: parseManifest(text),
    text,
    fingerprint: fingerprintBytes(text),
  };
  const { manifest } = loaded;

  const reads = await readManifestSources(root, loaded);
  const cache: ParseCache = new Map();
  const issues: SourceIssue[] = [];
  const parsed: ReindexPlan["parsed"] = [];
  const units: { read: ReadSource; fingerprint: string; entities: number }[] = [];
  for (const read of reads) {
    const isStarter = starter && read.path === STARTER_LEDGER_PATH;
    const result = isStarter
      ? { entities: [], dependencies: [], issues: [] }
      : await parseCached(read, cache, options.signal);
    issues.push(...result.issues);
    parsed.push({ read, result });
    units.push({
      read,
      fingerprint: isStarter ? fingerprintBytes(STARTER_LEDGER) : read.snapshot.fingerprint,
      entities: result.entities.length,
    });
  }
  const clash = findKeyClash(parsed);
  if (clash !== undefined) issues.push(clash);
  const sources = manifest.sources.map((source): InitSourceReport => {
    const own = units.filter((u) => u.read.source === source);
    const head = own[0] as (typeof own)[number];
    return {
      domain: source.domain,
      role: source.role,
      path: head.read.path,
      adapter: source.adapter,
      exists:
        head.read.snapshot.fingerprint !== MISSING_FINGERPRINT ||
        (starter && head.read.path === STARTER_LEDGER_PATH),
      fingerprint: head.fingerprint,
      entity_count: own.reduce((n, u) => n + u.entities, 0),
    };
  });
  const preview_fingerprint = fingerprintBytes(
    [fingerprintBytes(text), ...units.map((u) => `${u.read.path}\u0000${u.fingerprint}`)].join(
      "\n",
    ),
  );
  const base = {
    root,
    manifest_origin: origin,
    manifest,
    manifest_toml: text,
    sources,
    issues,
    preview_fingerprint,
  };

  if (options.accept !== true) {
    const known = existingText === undefined ? null : await readIdentity(root, manifest, options);
    return {
      mode: "preview",
      project_id: known?.project_id ?? null,
      project_revision: known?.revision ?? 0,
      already_initialised: known !== null,
      created: [],
      ...base,
    };
  }

  // A source holding a credential does not stop init: it is held back like at any reindex
  // (recorded without entities, reported not fresh) and its issues are in the answer.
  const errors = issues.filter((i) => i.severity === "error" && !isSecretIssue(i));
  if (errors.length > 0) {
    const first = errors[0] as SourceIssue;
    throw new LedgerError(
      first.code ?? "InvalidInput",
      `Cannot initialise: ${first.path}${first.line === null ? "" : `:${first.line}`}: ${first.message}` +
        (errors.length > 1 ? ` (and ${errors.length - 1} more problem(s))` : "") +
        ". Fix the source and run init again; nothing was written.",
      { issues: errors },
    );
  }
  const writes = new InitWrites(root);
  try {
    writes.directory(AWR_DIR);
    if (existingText === undefined) writes.newFile(MANIFEST_PATH, text);
    if (starter) writes.newFile(STARTER_LEDGER_PATH, STARTER_LEDGER);
    if (usesProjectFile(manifest, options)) {
      writes.database(`${AWR_DIR}/${STATE_DB}`);
    }
    writes.gitignore();
    const { project_id, existed, indexed } = await createLedger(root, loaded, cache, options);
    return {
      mode: "accepted",
      project_id,
      project_revision: indexed.project_revision,
      already_initialised: existed,
      created: writes.created,
      ...base,
      sources: sources.map((s) => ({
        ...s,
        entity_count: indexed.sources
          .filter((i) => i.path === s.path || i.path.startsWith(`${s.path}/`))
          .reduce((n, i) => n + i.entity_count, 0),
      })),
      index: {
        ok: indexed.issues.every((i) => i.severity !== "error" && !isSecretIssue(i)),
        ...indexed,
      },
    };
  } catch (error) {
    writes.rollback();
    throw error;
  }
}

/** Opens (creating) the ledger, gives it its identity once, and indexes the sources. */
async function createLedger(
  root: string,
  loaded: LoadedManifest,
  cache: ParseCache,
  options: InitProjectOptions,
): Promise<{ project_id: string; existed: boolean; indexed: ReindexResult }> {
  const opened = await openProjectDatabase(root, loaded.manifest, options.database, options.env);
  try {
    await migrateToLatest(opened.db, opened.dialect);
    let state = await opened.db.selectFrom("project_state").selectAll().executeTakeFirst();
    const existed = state !== undefined;
    if (state === undefined) {
      await opened.db
        .insertInto("project_state")
        .values({
          project_id: ulid(),
          name: loaded.manifest.project.name,
          revision: 0,
          manifest_fingerprint: null,
          created_at: new Date().toISOString(),
        })
        .execute();
      state = await opened.db.selectFrom("project_state").selectAll().executeTakeFirstOrThrow();
    }
    const store = new LedgerStore(opened.db, opened.dialect, state.project_id);
    const indexed = await indexSources(store, root, loaded, { signal: options.signal, cache });
    return { project_id: state.project_id, existed, indexed };
  } finally {
    await opened.close();
  }
}

/** True when the ledger is the project's own `.awr/state.db` file (not a server, not the caller's). */
function usesProjectFile(manifest: Manifest, options: InitProjectOptions): boolean {
  return !storageDialect(manifest.storage.backend).connectsByUrl && options.database === undefined;
}

async function readIdentity(root: string, manifest: Manifest, options: InitProjectOptions) {
  if (usesProjectFile(manifest, options) && !existsSync(join(root, AWR_DIR, STATE_DB))) {
    return null;
  }
  const opened = await openProjectDatabase(root, manifest, options.database, options.env);
  try {
    const state = await opened.db.selectFrom("project_state").selectAll().executeTakeFirst();
    return state === undefined
      ? null
      : { project_id: state.project_id, revision: Number(state.revision) };
  } catch {
    return null;
  } finally {
    await opened.close();
  }
}
