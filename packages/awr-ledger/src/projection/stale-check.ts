import { join, resolve } from "node:path";
import { LedgerError } from "../errors.js";
import { MISSING_FINGERPRINT, statFile } from "../sources/fingerprint.js";
import type { Manifest, ManifestSource } from "../sources/manifest.js";
import { MANIFEST_PATH } from "../sources/read-sources.js";
import { listDecisionDirectory } from "../sources/source-directory.js";
import { readSourceFile } from "../sources/source-file.js";
import { sourceCaps } from "../sources/source-options.js";
import type { LedgerStore } from "../storage/ledger-store.js";

interface Seen {
  size: number;
  mtime_ms: number;
  fingerprint: string;
}

/** A fingerprint no file has: the unit can no longer be read as it was (reindex explains why). */
const UNREADABLE = "unreadable";

/**
 * Finds sources changed since the last index, cheaply: a file whose size and mtime match what
 * was recorded is taken as unchanged; only a file whose stat differs is hashed (read safely and
 * in slices, see source-file.ts), and the hash is remembered per (size, mtime) so a
 * touched-but-identical file is hashed once. A markdown-directory-v1 directory is listed again
 * each time (a file added or removed changes its fingerprint). Never writes, never throws for a
 * source that cannot be read: that source is reported changed, and the reindex names the
 * problem.
 */
export class StaleChecker {
  readonly #seen = new Map<string, Seen>();

  async changedPaths(store: LedgerStore, root: string, manifest?: Manifest): Promise<string[]> {
    const [rows, state] = await Promise.all([
      store.db
        .selectFrom("sources")
        .select(["path", "fingerprint", "size", "mtime_ms", "kind", "adapter"])
        .execute(),
      store.db.selectFrom("project_state").select("manifest_fingerprint").executeTakeFirst(),
    ]);
    const changed: string[] = [];
    const manifestFile = join(root, MANIFEST_PATH);
    const manifestPrint =
      statFile(manifestFile) === undefined
        ? null
        : await this.#fingerprint(manifestFile, 64 * 1024);
    if (manifestPrint !== (state?.manifest_fingerprint ?? null)) changed.push(MANIFEST_PATH);
    for (const row of rows) {
      const absolute = resolve(root, row.path);
      const source = manifest === undefined ? undefined : owningSource(manifest, row.path);
      if (row.kind === "directory") {
        if (directoryPrint(absolute, row.path, source) !== row.fingerprint) changed.push(row.path);
        continue;
      }
      const stat = statFile(absolute);
      if (stat === undefined) {
        if (row.fingerprint !== MISSING_FINGERPRINT) changed.push(row.path);
        continue;
      }
      if (stat.size === Number(row.size) && stat.mtime_ms === Number(row.mtime_ms)) continue;
      const { maxBytes } = sourceCaps(row.adapter, source?.options ?? {});
      if ((await this.#fingerprint(absolute, maxBytes)) !== row.fingerprint) changed.push(row.path);
    }
    return changed.sort();
  }

  /** Throws SourceStale `{changed_paths}` when any source changed since the last index. */
  async assertFresh(store: LedgerStore, root: string, manifest?: Manifest): Promise<void> {
    const changed = await this.changedPaths(store, root, manifest);
    if (changed.length === 0) return;
    throw new LedgerError(
      "SourceStale",
      `Sources changed since the last index: ${changed.join(", ")}. Run \`awr source reindex\` ` +
        "(or awr_source_reindex) and read again.",
      { changed_paths: changed },
    );
  }

  async #fingerprint(absolute: string, maxBytes: number): Promise<string> {
    const stat = statFile(absolute);
    if (stat === undefined) return MISSING_FINGERPRINT;
    const seen = this.#seen.get(absolute);
    if (seen !== undefined && seen.size === stat.size && seen.mtime_ms === stat.mtime_ms)
      return seen.fingerprint;
    let fingerprint: string;
    try {
      fingerprint =
        (await readSourceFile(absolute, absolute, maxBytes))?.fingerprint ?? MISSING_FINGERPRINT;
    } catch {
      return UNREADABLE;
    }
    this.#seen.set(absolute, { ...stat, fingerprint });
    return fingerprint;
  }
}

/** The manifest source a recorded unit belongs to (a directory's files belong to it). */
export function owningSource(manifest: Manifest, path: string): ManifestSource | undefined {
  return manifest.sources.find(
    (s) =>
      s.path.replace(/\/+$/, "") === path ||
      (s.adapter === "markdown-directory-v1" && path.startsWith(`${s.path.replace(/\/+$/, "")}/`)),
  );
}

function directoryPrint(
  absolute: string,
  recorded: string,
  source: ManifestSource | undefined,
): string {
  try {
    const listing = listDecisionDirectory(absolute, recorded, recorded, {
      recursive: source?.options["recursive"] !== false,
      maxFiles: sourceCaps("markdown-directory-v1", source?.options ?? {}).maxEntities,
    });
    return listing?.fingerprint ?? MISSING_FINGERPRINT;
  } catch {
    return UNREADABLE;
  }
}
