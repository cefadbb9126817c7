import { createHash } from "node:crypto";
import { mkdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBetterSqlite3 } from "../internal/lazy-dependencies.js";

/**
 * Token counts that outlive the process, so that a fresh `awr context compile` of texts counted
 * before (a project whose sources did not change) needs no encoder: building the o200k_base
 * encoder (2 MB of ranks, a 200,000-entry table) costs several times a whole cold read. A count is
 * a pure function of the text and the encoding, so entries are keyed by the text's SHA-256 and
 * the file is named after the encoding and gpt-tokenizer's version; projects share it.
 *
 * The counts are a SQLite file (through better-sqlite3, which a SQLite ledger has loaded anyway),
 * so a process reads only the counts of the texts it counts, one indexed lookup each: a cache
 * read whole made every cold compile parse every count any project had made (about 20 ms at
 * 14,000 counts, growing with use). New counts are written in one transaction when the process
 * exits; at most MAX_ENTRIES are kept, the longest unwritten going first.
 *
 * The file lives in `$AWR_CACHE_DIR`, else `<os tmpdir>/awr-cache-<uid>` (a directory of the
 * user's own, mode 0700, as Node's compile cache does); a directory another user owns is not
 * used. Every failure (no better-sqlite3, unreadable, malformed, locked, unwritable) only means
 * no cache: counts are then made by the encoder as before. Concurrent processes share the file
 * (WAL); nothing in it needs to survive a crash, so commits are not synced.
 */
const ENCODING_ID = `o200k_base-gpt-tokenizer-${
  (createRequire(import.meta.url)("gpt-tokenizer/package.json") as { version: string }).version
}`;
const MAX_ENTRIES = 50_000;
/** How long a writer waits for another process's write to the file, at exit. */
const BUSY_TIMEOUT_MS = 200;

interface CountStore {
  get(key: string): number | undefined;
  save(entries: ReadonlyMap<string, number>, maxEntries: number): void;
}

/** undefined until first used; null when there is no cache. */
let store: CountStore | null | undefined;
/** Counts made by this process and not written yet. */
const pending = new Map<string, number>();
let hooked = false;

function cacheFile(): string | undefined {
  const dir =
    process.env["AWR_CACHE_DIR"] || join(tmpdir(), `awr-cache-${process.getuid?.() ?? "user"}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const owner = statSync(dir).uid;
    if (process.getuid !== undefined && owner !== process.getuid()) return undefined;
  } catch {
    return undefined;
  }
  return join(dir, `token-counts-${ENCODING_ID}.db`);
}

/** The key of a text: its SHA-256, base64url (collisions are not a practical concern). */
export function textKey(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

function openStore(): CountStore | null {
  const file = cacheFile();
  if (file === undefined) return null;
  try {
    const db = openBetterSqlite3(file, { timeout: BUSY_TIMEOUT_MS });
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = OFF");
    // A rewritten count gets a new rowid, so rowid order is the order counts were written.
    db.exec(
      "CREATE TABLE IF NOT EXISTS counts (key TEXT PRIMARY KEY, count INTEGER NOT NULL CHECK (count >= 0))",
    );
    const select = db.prepare("SELECT count FROM counts WHERE key = ?").pluck();
    const upsert = db.prepare("INSERT OR REPLACE INTO counts (key, count) VALUES (?, ?)");
    const trim = db.prepare(
      "DELETE FROM counts WHERE rowid <= (SELECT max(rowid) FROM counts) - ?",
    );
    const saveAll = db.transaction((entries: ReadonlyMap<string, number>, maxEntries: number) => {
      for (const [key, count] of entries) upsert.run(key, count);
      trim.run(maxEntries);
    });
    return {
      get(key) {
        const count: unknown = select.get(key);
        return typeof count === "number" && Number.isSafeInteger(count) && count >= 0
          ? count
          : undefined;
      },
      save: saveAll,
    };
  } catch {
    return null;
  }
}

function counts(): CountStore | null {
  if (store === undefined) store = openStore();
  return store;
}

/** The persisted count of `key`, if any (the file is opened on the first call). */
export function persistedCount(key: string): number | undefined {
  const made = pending.get(key);
  if (made !== undefined) return made;
  try {
    return counts()?.get(key);
  } catch {
    return undefined; // a locked or damaged file: no cache
  }
}

/** Records a count made by the encoder; it is written when the process exits. */
export function persistCount(key: string, count: number): void {
  pending.set(key, count);
  if (!hooked) {
    hooked = true;
    process.once("exit", () => saveTokenCounts());
  }
}

/**
 * Writes the counts made since the last save now (the exit hook does this; exported for tests,
 * which may also lower the number of counts kept).
 */
export function saveTokenCounts(maxEntries: number = MAX_ENTRIES): void {
  if (pending.size === 0) return;
  try {
    counts()?.save(pending, maxEntries);
    pending.clear();
  } catch {
    // A cache that cannot be written is no cache; the counts were right regardless.
  }
}
