import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LedgerError } from "../errors.js";
import { fingerprintBytes, MISSING_FINGERPRINT, statFile } from "../sources/fingerprint.js";
import { MANIFEST_PATH } from "../sources/read-sources.js";
import type { LedgerStore } from "../storage/ledger-store.js";

interface Seen {
  size: number;
  mtime_ms: number;
  fingerprint: string;
}

/**
 * Finds sources changed since the last index, cheaply: a file whose size and mtime match what
 * was recorded is taken as unchanged; only a file whose stat differs is hashed, and the hash is
 * remembered per (size, mtime) so a touched-but-identical file is hashed once. Never writes.
 */
export class StaleChecker {
  readonly #seen = new Map<string, Seen>();

  async changedPaths(store: LedgerStore, root: string): Promise<string[]> {
    const [rows, state] = await Promise.all([
      store.db.selectFrom("sources").select(["path", "fingerprint", "size", "mtime_ms"]).execute(),
      store.db.selectFrom("project_state").select("manifest_fingerprint").executeTakeFirst(),
    ]);
    const changed: string[] = [];
    const manifest = this.#fingerprint(join(root, MANIFEST_PATH));
    if (manifest !== (state?.manifest_fingerprint ?? null)) changed.push(MANIFEST_PATH);
    for (const row of rows) {
      const absolute = join(root, row.path);
      const stat = statFile(absolute);
      if (stat === undefined) {
        if (row.fingerprint !== MISSING_FINGERPRINT) changed.push(row.path);
        continue;
      }
      if (stat.size === Number(row.size) && stat.mtime_ms === Number(row.mtime_ms)) continue;
      if (this.#fingerprint(absolute) !== row.fingerprint) changed.push(row.path);
    }
    return changed.sort();
  }

  /** Throws SourceStale `{changed_paths}` when any source changed since the last index. */
  async assertFresh(store: LedgerStore, root: string): Promise<void> {
    const changed = await this.changedPaths(store, root);
    if (changed.length === 0) return;
    throw new LedgerError(
      "SourceStale",
      `Sources changed since the last index: ${changed.join(", ")}. Run \`awr source reindex\` ` +
        "(or awr_source_reindex) and read again.",
      { changed_paths: changed },
    );
  }

  #fingerprint(absolute: string): string | null {
    const stat = statFile(absolute);
    if (stat === undefined) return absolute.endsWith(MANIFEST_PATH) ? null : MISSING_FINGERPRINT;
    const seen = this.#seen.get(absolute);
    if (seen !== undefined && seen.size === stat.size && seen.mtime_ms === stat.mtime_ms)
      return seen.fingerprint;
    const fingerprint = fingerprintBytes(readFileSync(absolute));
    this.#seen.set(absolute, { ...stat, fingerprint });
    return fingerprint;
  }
}
