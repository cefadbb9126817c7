import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Token counts that outlive the process, so that a fresh `awr context compile` of texts counted
 * before (a project whose sources did not change) needs no encoder: building the o200k_base
 * encoder (2 MB of ranks, a 200,000-entry table) costs several times a whole cold read. A count is
 * a pure function of the text and the encoding, so entries are keyed by the text's SHA-256 and
 * the file is named after the encoding and gpt-tokenizer's version; projects share it.
 *
 * The file lives in `$AWR_CACHE_DIR`, else `<os tmpdir>/awr-cache-<uid>` (a directory of the
 * user's own, mode 0700, as Node's compile cache does); a directory another user owns is not
 * used. Every failure (unreadable, malformed, unwritable) only means no cache: counts are then
 * made by the encoder as before. Writes replace the file whole (write, then rename), at most once
 * per process, when it counted something new; concurrent writers lose each other's newest
 * entries, never correctness.
 */
const ENCODING_ID = `o200k_base-gpt-tokenizer-${
  (createRequire(import.meta.url)("gpt-tokenizer/package.json") as { version: string }).version
}`;
const MAX_ENTRIES = 50_000;
const FILE_VERSION = 1;

let known: Map<string, number> | undefined;
let added = false;

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
  return join(dir, `token-counts-${ENCODING_ID}.json`);
}

/** The key of a text: its SHA-256, base64url (collisions are not a practical concern). */
export function textKey(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

function load(): Map<string, number> {
  const map = new Map<string, number>();
  const file = cacheFile();
  if (file === undefined) return map;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as {
      version?: unknown;
      counts?: unknown;
    };
    if (parsed.version !== FILE_VERSION || typeof parsed.counts !== "object" || !parsed.counts)
      return map;
    for (const [key, count] of Object.entries(parsed.counts as Record<string, unknown>)) {
      if (typeof count === "number" && Number.isSafeInteger(count) && count >= 0)
        map.set(key, count);
    }
  } catch {
    // No file yet, or not ours to read: start empty.
  }
  return map;
}

/** The persisted count of `key`, if any (the file is read on the first call). */
export function persistedCount(key: string): number | undefined {
  known ??= load();
  return known.get(key);
}

/** Records a count made by the encoder; the file is rewritten when the process exits. */
export function persistCount(key: string, count: number): void {
  known ??= load();
  if (known.get(key) === count) return;
  known.delete(key);
  known.set(key, count);
  if (known.size > MAX_ENTRIES) known.delete(known.keys().next().value as string);
  if (!added) {
    added = true;
    process.once("exit", saveTokenCounts);
  }
}

/** Writes the cache file now (the exit hook does this; exported for tests). */
export function saveTokenCounts(): void {
  const file = cacheFile();
  if (file === undefined || known === undefined) return;
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(
      temporary,
      JSON.stringify({ version: FILE_VERSION, counts: Object.fromEntries(known) }),
      { mode: 0o600 },
    );
    renameSync(temporary, file);
  } catch {
    // A cache that cannot be written is no cache; the counts were right regardless.
  }
}
