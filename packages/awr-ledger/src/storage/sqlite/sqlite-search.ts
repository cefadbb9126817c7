import type { Kysely } from "kysely";
import { sql } from "../../internal/kysely.js";
import { EVENT_SEARCH_WINDOW } from "../migrations/009-projection-changes.js";
import type { LedgerSchema } from "../schema.js";
import {
  type Candidate,
  type CandidateFilter,
  SEARCH_CANDIDATES,
  type SearchEngine,
  substringScore,
} from "../search-rank.js";
import { containsPattern, markedExcerpt, type SearchTerms } from "../search-terms.js";

/**
 * SQLite search (migrations 005, 006 and 009). Words: work, goals, plans, rules, decisions,
 * milestones and evidence in search_fts (unicode61 + porter, every term a prefix, bm25 with the
 * title weighted 4x), events in event_search_fts / event_search_recent (rowid = seq, the type
 * weighted 4x). Any CJK term: records in search_trigram (substring MATCH for terms of three or
 * more characters, LIKE for shorter ones), events by LIKE on the events table, newest first.
 * At most SEARCH_CANDIDATES records are ranked. Events: the newest `limit` matches among the
 * newest EVENT_SEARCH_WINDOW events, and among all of them (or all of one work item's) when
 * those and the records leave the page short (the ledger README's "Search" says what this means).
 */
export const SQLITE_SEARCH: SearchEngine = {
  async records(db, terms, filter, limit) {
    if (filter.docKinds?.every((k) => k === "event")) {
      return { candidates: [], more: false };
    }
    const refs = filter.work === null ? null : await workRefs(db, filter.work);
    const candidates =
      terms.cjk.length > 0
        ? await trigramRecords(db, terms, filter, refs)
        : await wordRecords(db, terms, filter, refs, limit + 1);
    return { candidates, more: false };
  },

  async events(db, terms, filter, limit, records) {
    if (filter.docKinds !== null && !filter.docKinds.includes("event")) {
      return { candidates: [], more: false };
    }
    const find = terms.cjk.length > 0 ? likeEvents : wordEvents;
    // One work item's events are searched whole; otherwise the window first, and the whole log
    // unless the window and the records already overfill the page (so `truncated` stays exact).
    const windowed = filter.work === null;
    // One event more than the page tells whether there are more; the page keeps the newest.
    let events = await find(db, terms, filter, limit + 1, windowed);
    if (windowed && events.length <= limit && records + events.length <= limit) {
      events = await find(db, terms, filter, limit + 1, false);
    }
    return { candidates: events.slice(0, limit), more: events.length > limit };
  },
};

/** The records whose work item is `work`: the item itself and its recorded evidence. */
async function workRefs(db: Kysely<LedgerSchema>, work: string): Promise<string[]> {
  const evidence = await db
    .selectFrom("evidence")
    .select("external_key")
    .where("work", "=", work)
    .execute();
  return [work, ...evidence.map((e) => e.external_key)];
}

function recordFilter(filter: CandidateFilter, refs: string[] | null) {
  const kinds = filter.docKinds?.filter((k) => k !== "event") ?? null;
  return sql.join(
    [
      kinds === null
        ? sql`1 = 1`
        : sql`doc_kind IN (SELECT value FROM json_each(${JSON.stringify(kinds)}))`,
      refs === null
        ? sql`1 = 1`
        : sql`ref IN (SELECT value FROM json_each(${JSON.stringify(refs)}))`,
    ],
    sql` AND `,
  );
}

async function wordRecords(
  db: Kysely<LedgerSchema>,
  terms: SearchTerms,
  filter: CandidateFilter,
  refs: string[] | null,
  limit: number,
): Promise<Candidate[]> {
  const match = terms.all.map((t) => `"${t.replaceAll('"', '""')}"*`).join(" AND ");
  const where = recordFilter(filter, refs);
  const { rows: top } = await sql<{ id: number; score: number }>`
    WITH candidates AS MATERIALIZED (
      SELECT rowid AS id, ref, bm25(search_fts, 0, 0, 4.0, 1.0) AS rank
        FROM search_fts WHERE search_fts MATCH ${match} AND ${where} LIMIT ${SEARCH_CANDIDATES})
    SELECT id, -rank AS score FROM candidates ORDER BY rank, ref LIMIT ${limit}`.execute(db);
  if (top.length === 0) return [];
  const score = new Map(top.map((t) => [Number(t.id), Number(t.score)]));
  const ids = [...score.keys()];
  // `+rowid IN`: a filter on the matches, not an FTS5 rowid lookup (which would re-run the
  // prefix query once per id); the rowid range lets FTS5 stop after the last candidate.
  const { rows } = await sql<{ id: number; doc_kind: string; ref: string; snippet: string }>`
    SELECT rowid AS id, doc_kind, ref, snippet(search_fts, 3, '[', ']', '…', 16) AS snippet
      FROM search_fts
     WHERE search_fts MATCH ${match}
       AND rowid BETWEEN ${Math.min(...ids)} AND ${Math.max(...ids)}
       AND +rowid IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`.execute(db);
  return rows.map((r) => ({
    doc_kind: r.doc_kind,
    ref: r.ref,
    score: score.get(Number(r.id)) ?? 0,
    snippet: r.snippet === "" ? null : r.snippet,
  }));
}

async function trigramRecords(
  db: Kysely<LedgerSchema>,
  terms: SearchTerms,
  filter: CandidateFilter,
  refs: string[] | null,
): Promise<Candidate[]> {
  const long = terms.all.filter((t) => [...t].length >= 3);
  const short = terms.all.filter((t) => [...t].length < 3);
  const match = long.map((t) => `"${t.replaceAll('"', '""')}"`).join(" AND ");
  const conditions = [
    long.length === 0 ? sql`1 = 1` : sql`search_trigram MATCH ${match}`,
    ...short.map((t) => sql`text LIKE ${containsPattern(t)} ESCAPE '\\'`),
    recordFilter(filter, refs),
  ];
  const { rows } = await sql<{ doc_kind: string; ref: string; text: string }>`
    SELECT doc_kind, ref, text FROM search_trigram
     WHERE ${sql.join(conditions, sql` AND `)} LIMIT ${SEARCH_CANDIDATES}`.execute(db);
  return rows.map((r) => {
    // The trigram text is key, title, then the body, one per line.
    const [, title = "", ...body] = r.text.split("\n");
    const rest = body.join("\n");
    return {
      doc_kind: r.doc_kind,
      ref: r.ref,
      score: substringScore(title, rest, terms.all),
      snippet: markedExcerpt(rest.trim() === "" ? title : rest, terms.all),
    };
  });
}

async function wordEvents(
  db: Kysely<LedgerSchema>,
  terms: SearchTerms,
  filter: CandidateFilter,
  limit: number,
  recent: boolean,
): Promise<Candidate[]> {
  const { work } = filter;
  const match = terms.all.map((t) => `"${t.replaceAll('"', '""')}"*`).join(" AND ");
  const t = sql.table(recent ? "event_search_recent" : "event_search_fts");
  const byWork =
    work === null ? sql`1 = 1` : sql`rowid IN (SELECT seq FROM events WHERE work = ${work})`;
  // The reader's own and project events only (one lookup by seq, the unique index, per match).
  const visible = sql`EXISTS (SELECT 1 FROM events ev WHERE ev.seq = ${t}.rowid AND ${filter.eventTextVisible("ev")})`;
  const { rows } = await sql<{ ref: string; snippet: string; score: number }>`
    SELECT id AS ref, snippet(${t}, 2, '[', ']', '…', 16) AS snippet,
           -bm25(${t}, 0, 4.0, 1.0) AS score
      FROM ${t} WHERE ${t} MATCH ${match} AND ${byWork} AND ${visible}
     ORDER BY rowid DESC LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({
    doc_kind: "event",
    ref: r.ref,
    score: Number(r.score),
    snippet: r.snippet === "" ? null : r.snippet,
  }));
}

async function likeEvents(
  db: Kysely<LedgerSchema>,
  terms: SearchTerms,
  filter: CandidateFilter,
  limit: number,
  recent: boolean,
): Promise<Candidate[]> {
  const { work } = filter;
  const conditions = [
    filter.eventTextVisible(),
    filter.notJournalReceipt(),
    ...terms.all.map(
      (t) => sql`(coalesce(summary, '') || ' ' || type) LIKE ${containsPattern(t)} ESCAPE '\\'`,
    ),
    work === null ? sql`1 = 1` : sql`work = ${work}`,
    recent
      ? sql`seq > (SELECT coalesce(max(seq), 0) FROM events) - ${EVENT_SEARCH_WINDOW}`
      : sql`1 = 1`,
  ];
  const { rows } = await sql<{ id: string; type: string; summary: string | null }>`
    SELECT id, type, summary FROM events WHERE ${sql.join(conditions, sql` AND `)}
     ORDER BY seq DESC LIMIT ${limit}`.execute(db);
  return rows.map((r) => ({
    doc_kind: "event",
    ref: r.id,
    score: substringScore(r.type, r.summary ?? "", terms.all),
    snippet: markedExcerpt(r.summary ?? r.type, terms.all),
  }));
}
