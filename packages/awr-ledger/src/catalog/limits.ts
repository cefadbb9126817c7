/**
 * Every bound on a tool input, defined once. The catalog's schemas use these, so what tools/list
 * advertises, what the ledger accepts and what the CLI checks are the same numbers. Where the
 * original AWR states a bound it is kept exactly; the others are ours and are generous enough
 * never to refuse normal use (docs/design/operation-catalog.md lists which are which).
 */
export const LIMITS = {
  /** Identifiers and names (work keys, session ids, conversations, agents, models), bytes. */
  idBytes: 256,
  /** Free text (reasons, digests, questions, replies, summaries, commands), bytes. */
  textBytes: 65_536,
  /** awr_search's text (the original's 1..500 characters; bytes never admit more). */
  searchTextBytes: 500,
  /** One item of a string list, bytes. */
  itemBytes: 4_096,
  /** Items of a string list. */
  listItems: 256,
  /** `limit` of the list reads (the original's 1..100, default 10). */
  limit: { min: 1, max: 100, default: 10 },
  /** Context budget in tokens (the original's 1..100 000, default 5000). */
  budget: { min: 1, max: 100_000, default: 5_000 },
  /** Claim lifetime: the original's minimum 1 ms; at most 30 days. */
  ttlMs: { min: 1, max: 30 * 24 * 60 * 60 * 1000 },
  /** `max_bytes` of the explicit full reads (the original's 1..16 MiB, default 64 KiB). */
  readBytes: { min: 1, max: 16_777_216, default: 65_536 },
  /** Revisions are stored as 32-bit integers (PostgreSQL INTEGER): 2 147 483 647 writes. */
  revisionMax: 2_147_483_647,
  /** request_id (the original's 1..256). */
  requestIdBytes: 256,
  /** event_type (the original's 1..128, `^[A-Za-z0-9_.:-]+$`). */
  eventTypeBytes: 128,
  /** event summary (the original's 1..8192 bytes). */
  eventSummaryBytes: 8_192,
  /** A free-form event payload as JSON, and its larger text fields (the original's 1 MiB). */
  eventPayloadBytes: 1024 * 1024,
  /** All of one call's arguments as JSON (the original's 1 MiB). */
  argumentsBytes: 1024 * 1024,
  /** Nesting depth of one call's arguments (objects and arrays). */
  argumentsDepth: 32,
  /** A `--input` / `--payload` file of the CLI (the original's 1 MiB; completion maps 64 KiB). */
  inputFileBytes: 1024 * 1024,
  completionFileBytes: 64 * 1024,
} as const;
