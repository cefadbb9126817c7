import { chmodSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { LedgerError } from "../errors.js";
import { yamlModule } from "../internal/lazy-dependencies.js";
import { planReindex } from "../projection/reindex-plan.js";
import {
  publicWorkstream,
  readCatalog,
  type Workstream,
} from "../projection/workstream-catalog.js";
import { fingerprintBytes } from "../sources/fingerprint.js";
import { parseManifest } from "../sources/manifest.js";
import { loadManifest, MANIFEST_PATH, readManifestSources } from "../sources/read-sources.js";
import { ledgerStore } from "../storage/ledger-store-of.js";
import type { WorkstreamAccess } from "./workstream-access.js";
import type { WorkstreamLedger } from "./workstream-read.js";

export const WORKSTREAM_ADAPTER = "yaml-workstream-ledger-v1";

/**
 * True when the project serves workstreams: its ledger recorded a declaration, or its manifest
 * already names yaml-workstream-ledger-v1 (enabling is pending until the next reindex; the
 * project's other tools must not serve it in between). A manifest that cannot be read answers
 * SourceStale: the boundary cannot be verified, so nothing is served.
 */
export async function workstreamsEnabled(
  ledger: WorkstreamLedger,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<boolean> {
  const recorded = await ledgerStore(ledger).read(
    (db) => db.selectFrom("workstream_catalog").select("source_path").executeTakeFirst(),
    { signal: options.signal },
  );
  if (recorded !== undefined) return true;
  try {
    return manifestNamesAdapter(ledger.context.root);
  } catch (error) {
    throw new LedgerError(
      "SourceStale",
      `The workstream boundary of this project cannot be verified (${(error as Error).message}); the operator must fix .awr/project.toml and reindex.`,
      undefined,
      { cause: error },
    );
  }
}

/**
 * Whether `<root>/.awr/project.toml` names the adapter; the file is parsed again only when its
 * size or mtime changed (this runs before every project tool of the shared service).
 */
const manifests = new Map<string, { size: number; mtimeMs: number; names: boolean }>();
function manifestNamesAdapter(root: string): boolean {
  const info = statSync(join(root, MANIFEST_PATH));
  const last = manifests.get(root);
  if (last?.size === info.size && last.mtimeMs === info.mtimeMs) return last.names;
  const names = loadManifest(root).manifest.sources.some((s) => s.adapter === WORKSTREAM_ADAPTER);
  manifests.set(root, { size: info.size, mtimeMs: info.mtimeMs, names });
  return names;
}

/**
 * Refuses a project tool (every tool but awr_workstream) over the shared service, as the
 * original does, on a project that serves workstreams and for a caller with workstream grants
 * on it: a project-wide grant never reads around a workstream boundary.
 */
export async function assertProjectToolAllowed(
  ledger: WorkstreamLedger,
  tool: string,
  access: WorkstreamAccess | undefined,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<void> {
  const granted = access !== undefined && access.grants.length > 0;
  if (!granted && !(await workstreamsEnabled(ledger, options))) return;
  throw new LedgerError(
    "Unsupported",
    `${tool} is not served here: ${granted ? "your credential has workstream grants on this project" : "this project serves workstreams"}, so only awr_workstream answers (start with action capabilities). Nothing was done.`,
    { tool },
  );
}

export interface WorkstreamListing {
  /** The project serves workstreams (a declaration is recorded). */
  enabled: boolean;
  /** The manifest names yaml-workstream-ledger-v1 but no reindex has recorded it yet. */
  pending: boolean;
  /** The ledger that declares them, or null. */
  source_path: string | null;
  legacy_default: string | null;
  workstreams: (Workstream & { work_items: number })[];
}

/** The operator's view: every recorded workstream with its number of work items. */
export async function listWorkstreams(
  ledger: WorkstreamLedger,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<WorkstreamListing> {
  const { catalog, counts } = await ledgerStore(ledger).read(
    async (db) => ({
      catalog: await readCatalog(db, ledger.projectId),
      counts: await db
        .selectFrom("workstream_ownership")
        .select(["workstream_id", (eb) => eb.fn.countAll<number>().as("n")])
        .groupBy("workstream_id")
        .execute(),
    }),
    { signal: options.signal },
  );
  const enabled = catalog.source_path !== null;
  return {
    enabled,
    pending: !enabled && (await workstreamsEnabled(ledger, options)),
    source_path: catalog.source_path,
    legacy_default: catalog.legacy_default,
    workstreams: catalog.workstreams.map((w) => ({
      ...publicWorkstream(w),
      work_items: Number(counts.find((c) => c.workstream_id === w.id)?.n ?? 0),
    })),
  };
}

/**
 * `awr workstream enable` (docs/compatibility/workstreams.md): the primary ledger that
 * declares `workstreams:` gets adapter yaml-workstream-ledger-v1 in the manifest, then the
 * ordinary source reindex records the declaration. The whole reindex is planned first with the
 * new manifest, so a ledger without a valid declaration (at least one definition, every work
 * item owned) is refused before the manifest changes: enabling never locks a project's tools
 * without serving its workstreams. A failed reindex puts the manifest back.
 */
export async function enableWorkstreams(
  ledger: WorkstreamLedger,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<WorkstreamListing> {
  const { root } = ledger.context;
  const current = loadManifest(root);
  if (!current.manifest.sources.some((s) => s.adapter === WORKSTREAM_ADAPTER)) {
    const index = declaringSource(ledger, current.manifest.sources);
    const text = switchAdapter(current.text, index);
    const next = { manifest: parseManifest(text), text, fingerprint: fingerprintBytes(text) };
    const reads = await readManifestSources(root, next);
    await ledgerStore(ledger).read(
      (db) => planReindex(db, next, reads, { signal: options.signal }),
      {
        signal: options.signal,
      },
    );
    writeAtomically(join(root, MANIFEST_PATH), text);
    try {
      await ledger.context.reindex({ signal: options.signal });
    } catch (error) {
      writeAtomically(join(root, MANIFEST_PATH), current.text);
      throw error;
    }
  } else {
    await ledger.context.reindex({ signal: options.signal });
  }
  return listWorkstreams(ledger, options);
}

/** The manifest index of the one ledger source whose file declares `workstreams:`. */
function declaringSource(
  ledger: WorkstreamLedger,
  sources: ReturnType<typeof loadManifest>["manifest"]["sources"],
): number {
  const { parseDocument } = yamlModule();
  const found: number[] = [];
  sources.forEach((source, i) => {
    if (source.domain !== "ledger" || source.adapter !== "yaml-ledger-v1") return;
    let text: string;
    try {
      text = readFileSync(resolve(ledger.context.root, source.path), "utf8");
    } catch {
      return;
    }
    const doc = parseDocument(text, { prettyErrors: false });
    if (doc.errors.length === 0 && doc.get("workstreams") !== undefined) found.push(i);
  });
  if (found.length === 0) {
    throw new LedgerError(
      "InvalidInput",
      "No ledger of this project declares workstreams, so enabling would serve nothing: add a workstreams: block (version: 1 and at least one definition) to the primary yaml-ledger-v1 ledger and name every work item's workstream, or convert workstreams/*.yaml with `awr workstream migrate`. Nothing was changed.",
    );
  }
  if (found.length > 1) {
    throw new LedgerError(
      "SourceConflict",
      `Several ledgers declare workstreams (${found.map((i) => sources[i]?.path).join(", ")}); one ledger declares every workstream. Nothing was changed.`,
    );
  }
  const source = sources[found[0] as number];
  if (source?.role !== "primary") {
    throw new LedgerError(
      "InvalidInput",
      `${source?.path} declares workstreams but is a supporting source; the workstream ledger is the primary ledger. Nothing was changed.`,
    );
  }
  return found[0] as number;
}

/**
 * The manifest text with adapter yaml-workstream-ledger-v1 for the `index`-th [[sources]]
 * table, every other byte as it was (the adapter line is edited in place).
 */
export function switchAdapter(text: string, index: number): string {
  const headers = [...text.matchAll(/^[ \t]*\[\[[ \t]*sources[ \t]*\]\][^\n]*$/gm)];
  const start = headers[index]?.index;
  const end = headers[index + 1]?.index ?? nextTable(text, start);
  const block = start === undefined ? "" : text.slice(start, end);
  const line = /^([ \t]*adapter[ \t]*=[ \t]*)(["'])yaml-ledger-v1\2/m;
  if (start === undefined || !line.test(block)) {
    throw new LedgerError(
      "InvalidInput",
      `Cannot find the adapter line of source #${index + 1} in ${MANIFEST_PATH}; set adapter = "${WORKSTREAM_ADAPTER}" for it by hand, then run \`awr workstream reindex\`. Nothing was changed.`,
    );
  }
  const edited = block.replace(line, `$1$2${WORKSTREAM_ADAPTER}$2`);
  return text.slice(0, start) + edited + text.slice(end);
}

/** Offset of the first table header after `from` that is not a [sources.*] sub-table. */
function nextTable(text: string, from: number | undefined): number {
  if (from === undefined) return text.length;
  const pattern = /^[ \t]*\[\[?[ \t]*([^\]]+?)[ \t]*\]\]?/gm;
  pattern.lastIndex = text.indexOf("\n", from) + 1 || text.length;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (!(m[1] ?? "").startsWith("sources.")) return m.index;
  }
  return text.length;
}

/** Replaces `file` with `text` (temp file, then rename), keeping its permissions. */
function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  chmodSync(temp, statSync(file).mode & 0o7777);
  renameSync(temp, file);
}
