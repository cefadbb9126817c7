import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import type { Backend } from "../storage/migration.js";
import { readClock } from "../storage/read-clock.js";
import type { LedgerSchema } from "../storage/schema.js";
import { memoAt, memoIn } from "./read-cache.js";
import { searchPostgres } from "./search-postgres.js";
import { searchSqlite } from "./search-sqlite.js";

export interface SearchInput {
  query: string;
  limit?: number | undefined;
}

export interface SearchHit {
  /** work | goal | plan | rule | decision | milestone | evidence | event */
  kind: string;
  /** The entity key, the evidence external_key, or the event id. */
  ref: string;
  title: string;
  /** Matching text with hits marked as [term]. */
  snippet: string;
  /** Higher is better. */
  score: number;
}

export interface SearchResult {
  project_revision: number;
  query: string;
  results: SearchHit[];
}

/** Words of the query; each must match (as a prefix) for a record to be found. */
export function queryTerms(query: string): string[] {
  return (query.normalize("NFKC").match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, 16);
}

/**
 * Full-text search over work, goals, plans, rules, decisions, milestones, recorded evidence and
 * event types/summaries (never event payloads): FTS5 with bm25 on SQLite, tsvector with
 * ts_rank_cd on PostgreSQL. Every term must match, as a prefix.
 *
 * Bounded at scale: only the first SEARCH_CANDIDATES matching records (and, of events, the
 * newest `limit` matches) are ranked, and snippets are made only for the returned hits, so a
 * common word on a large ledger costs about as much as on a small one. While the matches fit in
 * the candidate set the result is the full ranking.
 */
export async function search(
  db: Kysely<LedgerSchema>,
  backend: Backend,
  input: SearchInput,
  revision: number,
): Promise<SearchResult> {
  const terms = typeof input.query === "string" ? queryTerms(input.query) : [];
  if (terms.length === 0) {
    throw new LedgerError(
      "InvalidInput",
      'query must contain at least one word to search for, e.g. { query: "checkout" }.',
    );
  }
  const limit = input.limit ?? 20;
  const key = `search:${limit}:${terms.join("\u0000")}`;
  // Memoised per revision (read-cache.ts): records, evidence and events change only in writes
  // that spend a revision. Entries live until the next revision; each holds at most `limit`
  // hits. Callers get their own copies of the hits. On SQLite the record hits are memoised
  // longer, for as long as entities and evidence are unchanged (the read clock's projection
  // and evidence generations, which only grow: their sum changes whenever either does).
  const hits = await memoAt(db, revision, key, async () => {
    if (backend !== "sqlite") return searchPostgres(db, terms, limit);
    const clock = await memoAt(db, revision, "read-clock", () => readClock(db));
    return searchSqlite(db, terms, limit, (load) =>
      memoIn(db, "search-records", clock.generation + clock.evidence, key, load),
    );
  });
  return { project_revision: revision, query: input.query, results: hits.map((h) => ({ ...h })) };
}
