import { join } from "node:path";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import type { AdapterResult, SourceIssue } from "./adapters/index.js";
import { confineSourcePath, resolveAuthorizedRoots } from "./confinement.js";
import { fingerprintBytes, MISSING_FINGERPRINT, statFile } from "./fingerprint.js";
import { type Manifest, type ManifestSource, parseManifest } from "./manifest.js";
import { listDecisionDirectory } from "./source-directory.js";
import { readSourceFile, readSourceFileSync } from "./source-file.js";
import { sourceCaps } from "./source-options.js";

export const AWR_DIR = ".awr";
export const MANIFEST_PATH = ".awr/project.toml";
/** The largest manifest read (docs/compatibility/sources.md). */
const MANIFEST_MAX_BYTES = LIMITS.manifestBytes;

export interface LoadedManifest {
  manifest: Manifest;
  text: string;
  fingerprint: string;
}

/** Parses manifest text read from `label` (a regular file of at most 64 KiB). */
export function readManifestFile(absolute: string, label: string): LoadedManifest {
  const read = readSourceFileSync(absolute, label, MANIFEST_MAX_BYTES);
  if (read === undefined) {
    throw new LedgerError(
      "NotFound",
      `Manifest ${label} does not exist; check the path.`,
      { path: label },
      { next: `Check that ${label} exists and is a regular file (at most 64 KiB).` },
    );
  }
  const text = read.bytes.toString("utf8");
  return { manifest: parseManifest(text), text, fingerprint: fingerprintBytes(text) };
}

/** Reads and validates `<root>/.awr/project.toml`. */
export function loadManifest(root: string): LoadedManifest {
  return readManifestFile(join(root, MANIFEST_PATH), MANIFEST_PATH);
}

export interface SourceSnapshot {
  fingerprint: string;
  size: number;
  mtime_ms: number;
  /** The file's bytes; null for a missing file and for a directory (its listing is hashed). */
  bytes: Buffer | null;
}

/**
 * One indexed unit: a manifest source file, or for markdown-directory-v1 the directory itself
 * (`kind: "directory"`, fingerprint over its file list, no entities) and each of its files.
 */
export interface ReadSource {
  source: ManifestSource;
  kind: "file" | "directory";
  /** The recorded path: relative to the root with `/`, or absolute outside it. */
  path: string;
  absolute: string;
  snapshot: SourceSnapshot;
}

const MISSING: SourceSnapshot = {
  fingerprint: MISSING_FINGERPRINT,
  size: -1,
  mtime_ms: -1,
  bytes: null,
};

/** Reads one file, again if it changed while being read (at most three times more). */
async function snapshotFile(
  absolute: string,
  label: string,
  source: ManifestSource,
): Promise<SourceSnapshot> {
  const { maxBytes } = sourceCaps(source.adapter, source.options);
  for (let attempt = 0; ; attempt++) {
    const read = await readSourceFile(absolute, label, maxBytes, source.adapter);
    if (read === undefined) return MISSING;
    const after = statFile(absolute);
    if ((after?.size === read.size && after.mtime_ms === read.mtime_ms) || attempt >= 3) {
      return {
        fingerprint: read.fingerprint,
        size: read.size,
        mtime_ms: read.mtime_ms,
        bytes: read.bytes,
      };
    }
  }
}

/** Confines and reads one manifest source: one unit, or a directory and its files. */
export async function readSource(
  root: string,
  source: ManifestSource,
  authorizedRoots: readonly string[] = [],
): Promise<ReadSource[]> {
  const { relative, absolute } = confineSourcePath(root, source.path, authorizedRoots);
  if (source.adapter !== "markdown-directory-v1") {
    return [
      {
        source,
        kind: "file",
        path: relative,
        absolute,
        snapshot: await snapshotFile(absolute, relative, source),
      },
    ];
  }
  const listing = listDecisionDirectory(absolute, relative, relative, {
    recursive: source.options["recursive"] !== false,
    maxFiles: sourceCaps(source.adapter, source.options).maxEntities,
  });
  if (listing === undefined)
    return [{ source, kind: "directory", path: relative, absolute, snapshot: MISSING }];
  const directory: ReadSource = {
    source,
    kind: "directory",
    path: relative,
    absolute,
    snapshot: {
      fingerprint: listing.fingerprint,
      size: listing.files.length,
      mtime_ms: -1,
      bytes: null,
    },
  };
  const files: ReadSource[] = [];
  for (const file of listing.files) {
    confineSourcePath(root, file.absolute, authorizedRoots);
    files.push({
      source,
      kind: "file",
      path: file.path,
      absolute: file.absolute,
      snapshot: await snapshotFile(file.absolute, file.path, source),
    });
  }
  return [directory, ...files];
}

/** Reads (and hashes) every source of the manifest, as it is on disk now. */
export async function readManifestSources(
  root: string,
  loaded: LoadedManifest,
): Promise<ReadSource[]> {
  const authorized = resolveAuthorizedRoots(root, loaded.manifest.project.authorized_roots);
  const reads: ReadSource[] = [];
  for (const source of loaded.manifest.sources)
    reads.push(...(await readSource(root, source, authorized)));
  return reads;
}

/**
 * Runs a unit's adapter (off the main thread for a large file). A missing file or directory
 * yields a warning and no entities; a directory unit itself has no entities.
 */
export async function parseSource(read: ReadSource, signal?: AbortSignal): Promise<AdapterResult> {
  if (read.snapshot.fingerprint === MISSING_FINGERPRINT) {
    const what = read.kind === "directory" ? "directory" : "file";
    const issue: SourceIssue = {
      path: read.path,
      line: null,
      severity: "warning",
      message: `source ${what} ${read.path} does not exist yet; it contributes nothing until created`,
    };
    return { entities: [], dependencies: [], issues: [issue] };
  }
  if (read.kind === "directory" || read.snapshot.bytes === null) {
    return { entities: [], dependencies: [], issues: [] };
  }
  // The parsers and their worker pool load on the first parse: a read whose sources are all
  // unchanged (the fingerprints settle it) never needs them.
  const { parseJob } = await import("./parse-pool.js");
  return parseJob(
    {
      adapter: read.source.adapter,
      path: read.path,
      domain: read.source.domain,
      options: read.source.options,
      bytes: read.snapshot.bytes,
    },
    signal,
  );
}
