import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { sql } from "../internal/kysely.js";
import type { Backend } from "../storage/migration.js";
import type { LedgerSchema } from "../storage/schema.js";

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
  const results =
    backend === "sqlite"
      ? await searchSqlite(db, terms, limit)
      : await searchPostgres(db, terms, limit);
  return { project_revision: revision, query: input.query, results };
}

async function searchSqlite(
  db: Kysely<LedgerSchema>,
  terms: string[],
  limit: number,
): Promise<SearchHit[]> {
  const match = terms.map((t) => `"${t.replaceAll('"', '""')}"*`).join(" AND ");
  const { rows } = await sql<{
    kind: string;
    ref: string;
    title: string;
    snippet: string;
    score: number;
  }>`
    SELECT doc_kind AS kind, ref, title,
           snippet(search_fts, 3, '[', ']', '…', 16) AS snippet,
           -bm25(search_fts, 0, 0, 4.0, 1.0) AS score
    FROM search_fts WHERE search_fts MATCH ${match}
    ORDER BY bm25(search_fts, 0, 0, 4.0, 1.0), ref LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({
    ...r,
    snippet: r.snippet === "" ? r.title : r.snippet,
    score: Number(r.score),
  }));
}

async function searchPostgres(
  db: Kysely<LedgerSchema>,
  terms: string[],
  limit: number,
): Promise<SearchHit[]> {
  // to_tsquery input built only from word characters, each term as a prefix.
  const tsquery = terms.map((t) => `${t}:*`).join(" & ");
  const opts = "StartSel=[, StopSel=], MaxWords=24, MinWords=6, ShortWord=2";
  const { rows } = await sql<SearchHit>`
    WITH q AS (SELECT to_tsquery('english', ${tsquery}) AS query)
    SELECT kind, ref, title, snippet, score FROM (
      SELECT e.kind, e.key AS ref, e.title,
             ts_headline('english', coalesce(e.summary, '') || ' ' || e.body, q.query, ${opts}) AS snippet,
             ts_rank_cd(e.search_tsv, q.query) AS score
        FROM entities e, q WHERE e.search_tsv @@ q.query
      UNION ALL
      SELECT 'evidence', v.external_key, v.external_key,
             ts_headline('english', v.summary, q.query, ${opts}), ts_rank_cd(v.search_tsv, q.query)
        FROM evidence v, q WHERE v.search_tsv @@ q.query
      UNION ALL
      SELECT 'event', ev.id, ev.type,
             ts_headline('english', coalesce(ev.summary, ''), q.query, ${opts}), ts_rank_cd(ev.search_tsv, q.query)
        FROM events ev, q WHERE ev.search_tsv @@ q.query
    ) hits ORDER BY score DESC, ref LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({
    ...r,
    snippet: r.snippet === "" ? r.title : r.snippet,
    score: Number(r.score),
  }));
}
