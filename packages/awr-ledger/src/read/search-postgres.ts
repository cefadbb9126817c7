import type { Kysely } from "kysely";
import { sql } from "../internal/kysely.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { SearchHit } from "./search.js";
import { SEARCH_CANDIDATES } from "./search-rank.js";

/**
 * PostgreSQL search: each table's GIN-indexed tsvector finds the matches; at most
 * SEARCH_CANDIDATES entities and evidence records, and the newest `limit` matching events, are
 * ranked with ts_rank_cd, and ts_headline runs only on the `limit` hits returned.
 */
export async function searchPostgres(
  db: Kysely<LedgerSchema>,
  terms: string[],
  limit: number,
): Promise<SearchHit[]> {
  // to_tsquery input built only from word characters, each term as a prefix.
  const tsquery = terms.map((t) => `${t}:*`).join(" & ");
  const opts = "StartSel=[, StopSel=], MaxWords=24, MinWords=6, ShortWord=2";
  const { rows } = await sql<SearchHit>`
    WITH q AS MATERIALIZED (SELECT to_tsquery('english', ${tsquery}) AS query),
    ent AS MATERIALIZED (
      SELECT e.kind, e.key AS ref, e.title, coalesce(e.summary, '') || ' ' || e.body AS text,
             ts_rank_cd(e.search_tsv, q.query) AS score
        FROM (SELECT * FROM entities e, q WHERE e.search_tsv @@ q.query LIMIT ${SEARCH_CANDIDATES}) e, q),
    evi AS MATERIALIZED (
      SELECT 'evidence' AS kind, v.external_key AS ref, v.external_key AS title, v.summary AS text,
             ts_rank_cd(v.search_tsv, q.query) AS score
        FROM (SELECT * FROM evidence v, q WHERE v.search_tsv @@ q.query LIMIT ${SEARCH_CANDIDATES}) v, q),
    evt AS MATERIALIZED (
      SELECT 'event' AS kind, ev.id AS ref, ev.type AS title, coalesce(ev.summary, '') AS text,
             ts_rank_cd(ev.search_tsv, q.query) AS score
        FROM events ev, q WHERE ev.search_tsv @@ q.query ORDER BY ev.seq DESC LIMIT ${limit}),
    hits AS MATERIALIZED (
      SELECT * FROM (SELECT * FROM ent UNION ALL SELECT * FROM evi UNION ALL SELECT * FROM evt) a
       ORDER BY score DESC, ref LIMIT ${limit})
    SELECT h.kind, h.ref, h.title, ts_headline('english', h.text, q.query, ${opts}) AS snippet, h.score
      FROM hits h, q ORDER BY h.score DESC, h.ref`.execute(db);
  return rows.map((r) => ({
    ...r,
    snippet: r.snippet === "" ? r.title : r.snippet,
    score: Number(r.score),
  }));
}
