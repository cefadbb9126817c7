import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type AdapterResult, SOURCE_ADAPTERS, type SourceIssue } from "./adapters/index.js";
import { confineSourcePath } from "./confinement.js";
import { fingerprintBytes, type SourceSnapshot, snapshotFile, statFile } from "./fingerprint.js";
import { type Manifest, type ManifestSource, parseManifest } from "./manifest.js";

export const AWR_DIR = ".awr";
export const MANIFEST_PATH = ".awr/project.toml";

export interface LoadedManifest {
  manifest: Manifest;
  text: string;
  fingerprint: string;
}

/** Reads and validates `<root>/.awr/project.toml`. */
export function loadManifest(root: string): LoadedManifest {
  const text = readFileSync(join(root, MANIFEST_PATH), "utf8");
  return { manifest: parseManifest(text), text, fingerprint: fingerprintBytes(text) };
}

export interface ReadSource {
  source: ManifestSource;
  /** Normalised path relative to the root. */
  path: string;
  absolute: string;
  snapshot: SourceSnapshot;
}

/** Confines and snapshots one manifest source, retrying if the file changes while being read. */
export function readSource(root: string, source: ManifestSource): ReadSource {
  const { relative, absolute } = confineSourcePath(root, source.path);
  for (let attempt = 0; ; attempt++) {
    const before = statFile(absolute);
    const snapshot = snapshotFile(absolute);
    const after = statFile(absolute);
    const steady =
      before?.size === after?.size &&
      before?.mtime_ms === after?.mtime_ms &&
      snapshot.size === (after?.size ?? -1);
    if (steady || attempt >= 3) return { source, path: relative, absolute, snapshot };
  }
}

/** Runs a source's adapter. A missing file yields a warning and no entities. */
export function parseSource(read: ReadSource): AdapterResult {
  if (read.snapshot.text === null) {
    const issue: SourceIssue = {
      path: read.path,
      line: null,
      severity: "warning",
      message: `source file ${read.path} does not exist yet; it contributes nothing until created`,
    };
    return { entities: [], dependencies: [], issues: [issue] };
  }
  return SOURCE_ADAPTERS[read.source.adapter](read.snapshot.text, {
    path: read.path,
    domain: read.source.domain,
    options: read.source.options,
  });
}
