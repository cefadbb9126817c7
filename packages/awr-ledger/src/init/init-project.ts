import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import { ulid } from "../internal/ulid.js";
import { type DatabaseInput, openProjectDatabase } from "../project-storage.js";
import { indexSources } from "../projection/index-sources.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import { fingerprintBytes } from "../sources/fingerprint.js";
import { type Manifest, parseManifest, renderManifest } from "../sources/manifest.js";
import { MANIFEST_PATH, parseSource, readSource } from "../sources/read-sources.js";
import { LedgerStore } from "../storage/ledger-store.js";
import { migrateToLatest } from "../storage/migrator.js";
import { discoverManifest, STARTER_LEDGER, STARTER_LEDGER_PATH } from "./discover-sources.js";

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
  /** True when .awr/project.toml already existed before this call. */
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
}

const GITIGNORE_ENTRIES = [".awr/state.db", ".awr/state.db-wal", ".awr/state.db-shm"];

function normalise(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\s+$/, "");
}

/**
 * `awr init`: previews the source mapping (writing nothing) or, with accept, creates
 * `.awr/project.toml`, the ledger, the .gitignore entries and the project's permanent ULID, then
 * indexes the sources. Re-running keeps the identity; a different manifest is refused.
 */
export async function initProject(options: InitProjectOptions): Promise<InitResult> {
  throwIfAborted(options.signal);
  const root = resolve(options.root);
  if (!existsSync(root)) {
    throw new LedgerError(
      "NotFound",
      `Project root ${root} does not exist; create it or pass the right --project.`,
      { root },
    );
  }
  const manifestFile = join(root, MANIFEST_PATH);
  const existingText = existsSync(manifestFile) ? readFileSync(manifestFile, "utf8") : undefined;
  let origin: InitResult["manifest_origin"];
  let text: string;
  let starter = false;
  if (options.manifest !== undefined) {
    const given = resolve(options.manifest);
    if (!existsSync(given))
      throw new LedgerError(
        "NotFound",
        `Manifest file ${given} does not exist; check the --manifest path.`,
      );
    text = readFileSync(given, "utf8");
    origin = "file";
    if (existingText !== undefined && normalise(existingText) !== normalise(text)) {
      throw new LedgerError(
        "SourceConflict",
        `${manifestFile} already holds a different manifest; edit it in place (then reindex) or remove --manifest.`,
        { path: MANIFEST_PATH },
      );
    }
  } else if (existingText !== undefined) {
    text = existingText;
    origin = "existing";
  } else {
    const discovery = discoverManifest(root, options.create_starter !== false);
    text = renderManifest(discovery.manifest);
    starter = discovery.starter && !existsSync(join(root, STARTER_LEDGER_PATH));
    origin = "discovered";
  }
  const manifest = parseManifest(text);

  const reads = manifest.sources.map((source) => readSource(root, source));
  const issues: SourceIssue[] = [];
  const sources = reads.map((read): InitSourceReport => {
    const isStarter = starter && read.path === STARTER_LEDGER_PATH;
    const result = isStarter ? { entities: [], issues: [] } : parseSource(read);
    issues.push(...result.issues.filter((i) => !(isStarter && i.severity === "warning")));
    return {
      domain: read.source.domain,
      role: read.source.role,
      path: read.path,
      adapter: read.source.adapter,
      exists: read.snapshot.text !== null || isStarter,
      fingerprint: isStarter ? fingerprintBytes(STARTER_LEDGER) : read.snapshot.fingerprint,
      entity_count: result.entities.length,
    };
  });
  const preview_fingerprint = fingerprintBytes(
    [fingerprintBytes(text), ...sources.map((s) => `${s.path}\u0000${s.fingerprint}`)].join("\n"),
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
      already_initialised: existingText !== undefined,
      created: [],
      ...base,
    };
  }

  const errors = issues.filter((i) => i.severity === "error");
  if (errors.length > 0) {
    const first = errors[0] as SourceIssue;
    throw new LedgerError(
      "InvalidInput",
      `Cannot initialise: ${first.path}${first.line === null ? "" : `:${first.line}`}: ${first.message}. Fix the source and run init again.`,
      { issues: errors },
    );
  }
  const created: string[] = [];
  mkdirSync(join(root, ".awr"), { recursive: true });
  if (existingText === undefined) {
    writeFileSync(manifestFile, text, { flag: "wx" });
    created.push(MANIFEST_PATH);
  }
  if (starter) {
    mkdirSync(dirname(join(root, STARTER_LEDGER_PATH)), { recursive: true });
    writeFileSync(join(root, STARTER_LEDGER_PATH), STARTER_LEDGER, { flag: "wx" });
    created.push(STARTER_LEDGER_PATH);
  }
  if (
    manifest.storage.backend === "sqlite" &&
    options.database === undefined &&
    !existsSync(join(root, ".awr/state.db"))
  ) {
    created.push(".awr/state.db");
  }
  if (addGitignoreEntries(root)) created.push(".gitignore");

  const opened = await openProjectDatabase(root, manifest, options.database, options.env);
  try {
    await migrateToLatest(opened.db, opened.backend);
    let state = await opened.db.selectFrom("project_state").selectAll().executeTakeFirst();
    if (state === undefined) {
      await opened.db
        .insertInto("project_state")
        .values({
          project_id: ulid(),
          name: manifest.project.name,
          revision: 0,
          manifest_fingerprint: null,
          created_at: new Date().toISOString(),
        })
        .execute();
      state = await opened.db.selectFrom("project_state").selectAll().executeTakeFirstOrThrow();
    }
    const store = new LedgerStore(opened.db, opened.backend, state.project_id);
    const indexed = await indexSources(
      store,
      root,
      { manifest, text, fingerprint: fingerprintBytes(text) },
      { signal: options.signal },
    );
    return {
      mode: "accepted",
      project_id: state.project_id,
      project_revision: indexed.project_revision,
      already_initialised: existingText !== undefined,
      created,
      ...base,
      sources: sources.map((s) => ({
        ...s,
        entity_count:
          indexed.sources.find((i) => i.path === s.path)?.entity_count ?? s.entity_count,
      })),
    };
  } finally {
    await opened.close();
  }
}

async function readIdentity(root: string, manifest: Manifest, options: InitProjectOptions) {
  if (
    manifest.storage.backend === "sqlite" &&
    options.database === undefined &&
    !existsSync(join(root, ".awr/state.db"))
  ) {
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

/** Adds the ledger's runtime files to .gitignore (creating it if needed). True if it changed. */
function addGitignoreEntries(root: string): boolean {
  const path = join(root, ".gitignore");
  const current = existsSync(path) ? readFileSync(path, "utf8") : "";
  const lines = new Set(current.split(/\r?\n/).map((l) => l.trim()));
  const missing = GITIGNORE_ENTRIES.filter((e) => !lines.has(e));
  if (missing.length === 0) return false;
  const prefix = current === "" || current.endsWith("\n") ? current : `${current}\n`;
  writeFileSync(path, `${prefix}# AWR runtime state (awr init)\n${missing.join("\n")}\n`);
  return true;
}
