import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { tempRoot } from "./helpers/backends.js";

type Tokens = typeof import("../src/context/tokens.js");
type Cache = typeof import("../src/context/token-count-cache.js");

const TEXTS = ["Work: W-0001 — ship the importer", "Unicode: 验收标准 🚀", "r12345\n"];

/** A fresh copy of the token counter and its cache, as a new process would have. */
async function freshProcess(): Promise<{ tokens: Tokens; cache: Cache }> {
  vi.resetModules();
  const tokens = await import("../src/context/tokens.js");
  const cache = await import("../src/context/token-count-cache.js");
  return { tokens, cache };
}

describe("persisted token counts", () => {
  let dir: ReturnType<typeof tempRoot>;
  beforeEach(() => {
    dir = tempRoot("awr-token-cache-");
    vi.stubEnv("AWR_CACHE_DIR", dir.root);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    dir.remove();
  });

  it("lets a later process count known texts without building the encoder, with the same counts", async () => {
    const first = await freshProcess();
    const counts = TEXTS.map((text) => first.tokens.countTokens(text));
    expect(first.tokens.tokenEncoderLoaded()).toBe(true);
    first.cache.saveTokenCounts();

    const second = await freshProcess();
    expect(TEXTS.map((text) => second.tokens.countTokens(text))).toEqual(counts);
    expect(second.tokens.tokenEncoderLoaded()).toBe(false);
    // A text no process counted before still gets the encoder, and its exact count.
    expect(second.tokens.countTokens("a new text")).toBe(first.tokens.countTokens("a new text"));
    expect(second.tokens.tokenEncoderLoaded()).toBe(true);
  });

  it("ignores a malformed or foreign cache file and counts with the encoder", async () => {
    const first = await freshProcess();
    const expected = first.tokens.countTokens(TEXTS[0] as string);
    first.cache.saveTokenCounts();
    const [file] = readdirSync(dir.root).filter((name) => name.endsWith(".db"));
    const path = join(dir.root, file as string);

    const corrupt = [
      () => writeFileSync(path, "not a database, but a file where the cache was"),
      () => {
        // A database of another shape: no counts table, and the value a count cannot have.
        const db = new Database(path);
        db.exec("CREATE TABLE counts (key TEXT PRIMARY KEY, count TEXT)");
        db.prepare("INSERT INTO counts VALUES (?, ?)").run(
          first.cache.textKey(TEXTS[0] as string),
          "-1",
        );
        db.close();
      },
    ];
    for (const damage of corrupt) {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      damage();
      const next = await freshProcess();
      expect(next.tokens.countTokens(TEXTS[0] as string)).toBe(expected);
      expect(next.tokens.tokenEncoderLoaded()).toBe(true);
      next.cache.saveTokenCounts();
    }
  });

  it("keeps the most recently written counts when it holds too many", async () => {
    const first = await freshProcess();
    const counts = TEXTS.map((text) => first.tokens.countTokens(text));
    first.cache.saveTokenCounts(2);

    const second = await freshProcess();
    // The two written last are still known; the oldest needs the encoder again.
    expect(TEXTS.slice(1).map((text) => second.tokens.countTokens(text))).toEqual(counts.slice(1));
    expect(second.tokens.tokenEncoderLoaded()).toBe(false);
    expect(second.tokens.countTokens(TEXTS[0] as string)).toBe(counts[0]);
    expect(second.tokens.tokenEncoderLoaded()).toBe(true);
  });
});
