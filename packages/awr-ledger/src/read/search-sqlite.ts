import type { Kysely } from "kysely";
import { sql } from "../internal/kysely.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { SearchHit } from "./search.js";
import { byScoreThenRef, SEARCH_CANDIDATES } from "./search-rank.js";

export interface Row {
  kind: string;
  ref: string;
  title: string;
  snippet: string;
  score: number;
}

/**
 * SQLite search (migration 005 layout): work, goals, plans, rules, decisions, milestones and
 * evidence in search_fts; events in event_search_fts with rowid = seq. Three bounded reads:
 * rank the first SEARCH_CANDIDATES record matches (bm25, title weighted 4x) and keep the best
 * `limit`; make snippets for those only; take the newest `limit` matching events (FTS5 walks the
 * rowids backwards and stops; see migration 005 for the recent-events window). The two lists
 * merge by score.
 */
export async function searchSqlite(
  db: Kysely<LedgerSchema>,
  terms: string[],
  limit: number,
  memoRecords: RecordsMemo = (load) => load(),
): Promise<SearchHit[]> {
  const match = terms.map((t) => `"${t.replaceAll('"', '""')}"*`).join(" AND ");
  const records = await memoRecords(() => recordHits(db, match, limit));
  // The newest matches among the newest RECENT_EVENT_WINDOW events; the whole event index is
  // read only when those and the records together leave the page short (so an event older than
  // the window is found whenever the page has room for it, and never costs a broad query).
  let events = await newestEvents(db, "event_search_recent", match, limit);
  if (events.length < limit && records.length + events.length < limit) {
    events = await newestEvents(db, "event_search_fts", match, limit);
  }
  return [...records, ...events]
    .map((r) => ({
      ...r,
      snippet: r.snippet === "" ? r.title : r.snippet,
      score: Number(r.score),
    }))
    .sort(byScoreThenRef)
    .slice(0, limit);
}

/**
 * Memoises the record hits (work, goals, plans, rules, decisions, milestones, evidence), which
 * depend only on search_fts: read/search.ts keys them by what changes search_fts, so a write
 * that only appends events does not rank the records again (their bm25 statistics are
 * search_fts's own).
 */
export type RecordsMemo = (load: () => Promise<readonly Row[]>) => Promise<readonly Row[]>;

async function recordHits(db: Kysely<LedgerSchema>, match: string, limit: number): Promise<Row[]> {
  const { rows: top } = await sql<{ id: number; score: number }>`
    WITH candidates AS MATERIALIZED (
      SELECT rowid AS id, ref, bm25(search_fts, 0, 0, 4.0, 1.0) AS rank
        FROM search_fts WHERE search_fts MATCH ${match} LIMIT ${SEARCH_CANDIDATES})
    SELECT id, -rank AS score FROM candidates ORDER BY rank, ref LIMIT ${limit}`.execute(db);
  const records: Row[] = [];
  if (top.length > 0) {
    const score = new Map(top.map((t) => [Number(t.id), Number(t.score)]));
    // `+rowid IN`: a filter on the matches, not an FTS5 rowid lookup (which would re-run the
    // prefix query once per id); the rowid range lets FTS5 stop after the last candidate.
    const ids = [...score.keys()];
    const { rows } = await sql<Omit<Row, "score"> & { id: number }>`
      SELECT rowid AS id, doc_kind AS kind, ref, title,
             snippet(search_fts, 3, '[', ']', '…', 16) AS snippet
        FROM search_fts
       WHERE search_fts MATCH ${match}
         AND rowid BETWEEN ${Math.min(...ids)} AND ${Math.max(...ids)}
         AND +rowid IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`.execute(db);
    for (const { id, ...row } of rows) records.push({ ...row, score: score.get(Number(id)) ?? 0 });
  }
  return records;
}

async function newestEvents(
  db: Kysely<LedgerSchema>,
  table: "event_search_recent" | "event_search_fts",
  match: string,
  limit: number,
): Promise<Row[]> {
  const t = sql.table(table);
  const { rows } = await sql<Row>`
    SELECT 'event' AS kind, ref, title, snippet(${t}, 2, '[', ']', '…', 16) AS snippet,
           -bm25(${t}, 0, 4.0, 1.0) AS score
      FROM ${t} WHERE ${t} MATCH ${match}
     ORDER BY rowid DESC LIMIT ${limit}`.execute(db);
  return rows;
}
