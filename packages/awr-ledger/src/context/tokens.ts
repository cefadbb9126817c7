import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { o200kModule } from "../internal/lazy-dependencies.js";
import { persistCount, persistedCount, textKey } from "./token-count-cache.js";

type Encoding = Pick<typeof import("gpt-tokenizer/encoding/o200k_base"), "countTokens">;

/**
 * The o200k_base merge ranks as JSON, written beside this module by the package build
 * (scripts/write-token-ranks.mjs). Parsing 2 MB of JSON is far cheaper than compiling the 2.4 MB
 * JavaScript module gpt-tokenizer ships them in, which was most of a cold `awr context compile`.
 * Source runs (tests) have no such file and load the module instead: the same ranks.
 */
export const RANKS_FILE = fileURLToPath(new URL("./o200k-ranks.json", import.meta.url));

const requireDependency = createRequire(import.meta.url);

/** An o200k_base encoding built from a ranks JSON file (an array indexed by rank). */
export function encodingFromRanks(path: string): Encoding {
  const ranks = JSON.parse(readFileSync(path, "utf8")) as (string | number[])[];
  const { GptEncoding } = requireDependency(
    "gpt-tokenizer/cjs/GptEncoding",
  ) as typeof import("gpt-tokenizer/GptEncoding");
  return GptEncoding.getEncodingApi("o200k_base", () => ranks);
}

let encoding: Encoding | undefined;

/** Whether this process built the encoder (false while every count came from a cache). */
export function tokenEncoderLoaded(): boolean {
  return encoding !== undefined;
}

/** Text is counted as ordinary text: `<|endoftext|>` in a source is characters, not a control token. */
const ORDINARY = { disallowedSpecial: new Set<string>() };

/**
 * Counts of recently counted texts. Packets are compiled again and again from mostly the same
 * chunks (a work item's siblings, rules, goals), so most chunk counts are repeats. Bounded: the
 * oldest entry goes first; long texts (whole packets) are not kept.
 */
const counted = new Map<string, number>();
const MAX_COUNTED = 8192;
const MAX_COUNTED_LENGTH = 4096;

/**
 * Tokens of `text` in the o200k_base encoding, counted as ordinary text: the unit of every
 * context budget. The encoding is loaded on the first count no cache holds (only context
 * compilation needs it; see token-count-cache.ts).
 */
export function countTokens(text: string): number {
  const known = counted.get(text);
  if (known !== undefined) return known;
  // A count this or an earlier process made is reused without the encoder (token-count-cache.ts).
  const key = textKey(text);
  let count = persistedCount(key);
  if (count === undefined) {
    encoding ??= existsSync(RANKS_FILE) ? encodingFromRanks(RANKS_FILE) : o200kModule();
    count = encoding.countTokens(text, ORDINARY);
    persistCount(key, count);
  }
  if (text.length <= MAX_COUNTED_LENGTH) {
    if (counted.size >= MAX_COUNTED) counted.delete(counted.keys().next().value as string);
    counted.set(text, count);
  }
  return count;
}
