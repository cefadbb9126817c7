import type { Kysely, RawBuilder } from "kysely";
import { sql } from "../../internal/kysely.js";
import { EVENT_SEARCH_WINDOW } from "../migrations/009-projection-changes.js";
import type { LedgerSchema } from "../schema.js";
import {
  type Candidate,
  SEARCH_CANDIDATES,
  type SearchEngine,
  substringScore,
} from "../search-rank.js";
import { bigrams, containsPattern, markedExcerpt, type SearchTerms } from "../search-terms.js";
import { mergeMatches, rememberedMatches, type WindowMatches } from "./event-window-matches.js";

const TRUE = sql<boolean>`true`;
const FALSE = sql<boolean>`false`;

function all(conditions: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return conditions.length === 0 ? TRUE : sql`(${sql.join(conditions, sql` AND `)})`;
}

/** The tsqueries of a search: words (`english`, each a prefix) and CJK words (bigram phrases). */
interface Queries {
  words: string | null;
  cjk: string | null;
  /** One-character CJK terms, matched by ILIKE. */
  singles: string[];
  /** Any CJK term: scored and excerpted as substrings. */
  substring: boolean;
}

function queriesOf(terms: SearchTerms): Queries {
  const words = terms.words
    .map((t) => `${t.replace(/[^\p{L}\p{N}_]/gu, "")}:*`)
    .filter((t) => t !== ":*");
  const phrases = terms.cjk.filter((t) => [...t].length >= 2);
  return {
    words: words.length === 0 ? null : words.join(" & "),
    cjk:
      phrases.length === 0
        ? null
        : phrases
            .map(
              (t) =>
                `(${bigrams(t)
                  .map((b) => `'${b}'`)
                  .join(" <-> ")})`,
            )
            .join(" & "),
    singles: terms.cjk.filter((t) => [...t].length < 2),
    substring: terms.cjk.length > 0,
  };
}

function matches(q: Queries, tsv: string, cjk: string, text: RawBuilder<unknown>) {
  return all([
    ...(q.words === null ? [] : [sql`${sql.ref(tsv)} @@ to_tsquery('english', ${q.words})`]),
    ...(q.cjk === null ? [] : [sql`${sql.ref(cjk)} @@ to_tsquery('simple', ${q.cjk})`]),
    ...q.singles.map((t) => sql`${text} ILIKE ${containsPattern(t)}`),
  ]);
}

function rank(q: Queries, tsv: string, cjk: string) {
  return sql.join(
    [
      q.words === null
        ? sql`0`
        : sql`ts_rank_cd(${sql.ref(tsv)}, to_tsquery('english', ${q.words}))`,
      q.cjk === null ? sql`0` : sql`ts_rank_cd(${sql.ref(cjk)}, to_tsquery('simple', ${q.cjk}))`,
    ],
    sql` + `,
  );
}

/** An event that matched: `Found` without its doc kind, with its place in the log. */
interface EventRow {
  seq: number;
  ref: string;
  title: string;
  text: string;
  score: number;
}

/** A scored and excerpted event match, with its place in the log (what is remembered). */
type EventCandidate = Candidate & { seq: number };

const eventRow = (r: EventRow): EventRow => ({
  seq: Number(r.seq),
  ref: r.ref,
  title: r.title,
  text: r.text,
  score: Number(r.score),
});

interface Found {
  doc_kind: string;
  ref: string;
  title: string;
  text: string;
  score: number;
}

const byScore = (a: Found, b: Found) =>
  b.score - a.score || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);

/**
 * The candidates of `found`: substring scores and excerpts for a CJK search; otherwise the
 * tsvector scores, with ts_headline snippets.
 */
async function candidatesOf(
  db: Kysely<LedgerSchema>,
  terms: SearchTerms,
  q: Queries,
  found: readonly Found[],
): Promise<Candidate[]> {
  if (q.substring) {
    return found.map((r) => ({
      doc_kind: r.doc_kind,
      ref: r.ref,
      score: substringScore(r.title, r.text, terms.all),
      snippet: markedExcerpt(r.text.trim() === "" ? r.title : r.text, terms.all),
    }));
  }
  const opts = "StartSel=[, StopSel=], MaxWords=24, MinWords=6, ShortWord=2";
  const snippets =
    found.length === 0
      ? []
      : (
          await sql<{ snippet: string }>`
            SELECT ts_headline('english', t.text, to_tsquery('english', ${q.words ?? ""}), ${opts}) AS snippet
              FROM unnest(${found.map((r) => r.text)}::text[]) WITH ORDINALITY AS t(text, n) ORDER BY t.n`.execute(
            db,
          )
        ).rows;
  return found.map((r, i) => ({
    doc_kind: r.doc_kind,
    ref: r.ref,
    score: r.score,
    snippet: snippets[i]?.snippet || null,
  }));
}

/**
 * PostgreSQL search (migrations 001 and 006). Words: each table's GIN-indexed tsvector
 * (`english`, every term a prefix), ranked with ts_rank_cd, ts_headline on the hits. CJK terms:
 * the GIN-indexed bigram vector search_cjk (a word is the phrase of its bigrams), a
 * one-character term by ILIKE; events by ILIKE. At most SEARCH_CANDIDATES entities and evidence
 * records are ranked. Events: the newest `limit` matches among the newest EVENT_SEARCH_WINDOW
 * events, and among all of them (or all of one work item's) when those and the records leave
 * the page short, as on SQLite (the ledger README's "Search" says what this means).
 */
export const POSTGRES_SEARCH: SearchEngine = {
  async records(db, terms, filter, limit) {
    const q = queriesOf(terms);
    const entityKinds = filter.docKinds?.filter((k) => k !== "evidence" && k !== "event") ?? null;
    const wantsEvidence = filter.docKinds === null || filter.docKinds.includes("evidence");
    const entityText = sql`coalesce(e.summary, '') || ' ' || e.body || ' ' || coalesce(e.attributes::jsonb ->> 'next_action', '')`;
    const entityWhere = all([
      matches(q, "e.search_tsv", "e.search_cjk", sql`(e.title || ' ' || ${entityText})`),
      entityKinds === null
        ? TRUE
        : entityKinds.length === 0
          ? FALSE
          : sql`e.kind IN (${sql.join(entityKinds)})`,
      filter.work === null ? TRUE : sql`e.key = ${filter.work}`,
    ]);
    const evidenceWhere = all([
      matches(q, "v.search_tsv", "v.search_cjk", sql`(v.external_key || ' ' || v.summary)`),
      wantsEvidence ? TRUE : FALSE,
      filter.work === null ? TRUE : sql`v.work = ${filter.work}`,
    ]);
    const { rows } = await sql<Found>`
      (SELECT e.kind AS doc_kind, e.key AS ref, e.title, ${entityText} AS text,
              ${rank(q, "e.search_tsv", "e.search_cjk")} AS score
         FROM entities e WHERE ${entityWhere} LIMIT ${SEARCH_CANDIDATES})
      UNION ALL
      (SELECT 'evidence', v.external_key, v.external_key, v.summary,
              ${rank(q, "v.search_tsv", "v.search_cjk")}
         FROM evidence v WHERE ${evidenceWhere} LIMIT ${SEARCH_CANDIDATES})`.execute(db);
    const found = rows.map((r) => ({ ...r, score: Number(r.score) }));
    if (q.substring) return { candidates: await candidatesOf(db, terms, q, found), more: false };
    // Snippets only for the records that can reach the page.
    found.sort(byScore);
    const top = found.slice(0, limit + 1);
    return { candidates: await candidatesOf(db, terms, q, top), more: found.length > top.length };
  },

  async events(db, terms, filter, limit, records) {
    if (filter.docKinds !== null && !filter.docKinds.includes("event")) {
      return { candidates: [], more: false };
    }
    const q = queriesOf(terms);
    const score = q.substring
      ? sql`0`
      : sql`ts_rank_cd(ev.search_tsv, to_tsquery('english', ${q.words ?? ""}))`;
    const where = (vector: RawBuilder<unknown>) =>
      all([
        q.substring
          ? all(
              terms.all.map(
                (t) =>
                  sql`(coalesce(ev.summary, '') || ' ' || ev.type) ILIKE ${containsPattern(t)}`,
              ),
            )
          : sql`${vector} @@ to_tsquery('english', ${q.words ?? ""})`,
        filter.work === null ? TRUE : sql`ev.work = ${filter.work}`,
        filter.eventTextVisible("ev"),
        filter.notJournalReceipt("ev"),
      ]);
    const columns = sql`ev.seq, ev.id AS ref, ev.type AS title, coalesce(ev.summary, '') AS text, ${score} AS score`;
    /**
     * The newest matches among the newest EVENT_SEARCH_WINDOW events that come after `after`,
     * and the newest event's seq. The events are read newest first through the seq index and
     * each one tested (`coalesce` keeps the planner off the GIN index, whose bitmap of a broad
     * prefix over the whole log is what made this slow).
     */
    const inWindow = async (after: number): Promise<WindowMatches<EventRow>> => {
      const { rows } = await sql<{ top: string | number } & Partial<EventRow>>`
        WITH top AS (SELECT coalesce(max(seq), 0) AS s FROM events)
        SELECT top.s AS top, m.* FROM top LEFT JOIN LATERAL (
          SELECT ${columns} FROM events ev
           WHERE ${where(sql`coalesce(ev.search_tsv, ''::tsvector)`)}
             AND ev.seq > greatest(top.s - ${EVENT_SEARCH_WINDOW}, ${after})
           ORDER BY ev.seq DESC LIMIT ${limit + 1}) m ON true`.execute(db);
      return {
        top: Number(rows[0]?.top ?? 0),
        rows: rows.filter((r): r is typeof r & EventRow => r.ref != null).map(eventRow),
      };
    };
    /** The newest matches in the whole log (or all of one work item's), through the GIN index. */
    const inLog = async (): Promise<EventRow[]> => {
      const { rows } = await sql<EventRow>`
        SELECT ${columns} FROM events ev WHERE ${where(sql`ev.search_tsv`)}
         ORDER BY ev.seq DESC LIMIT ${limit + 1}`.execute(db);
      return rows.map(eventRow);
    };
    /** The candidates (scores, snippets) of `rows`, each with its place in the log. */
    const candidates = async (rows: EventRow[]): Promise<EventCandidate[]> => {
      const found = rows.map(({ seq: _, ...r }) => ({ ...r, doc_kind: "event" }));
      return (await candidatesOf(db, terms, q, found)).map((c, i) => ({
        ...c,
        seq: rows[i]?.seq ?? 0,
      }));
    };
    // As on SQLite: one work item's events whole, else the window first and the whole log
    // unless the window and the records already overfill the page. The window's candidates are
    // remembered (event-window-matches.ts), so a search repeated after writes reads, scores and
    // excerpts only the events appended since.
    let page: EventCandidate[];
    if (filter.work !== null) page = await candidates(await inLog());
    else {
      const key = JSON.stringify([terms, filter.reader, limit]);
      const earlier = rememberedMatches<EventCandidate>(db, key);
      const fresh = await inWindow(earlier?.top ?? 0);
      const scored = { top: fresh.top, rows: await candidates(fresh.rows) };
      ({ rows: page } = mergeMatches(db, key, earlier, scored, EVENT_SEARCH_WINDOW, limit + 1));
      if (page.length <= limit && records + page.length <= limit) {
        page = await candidates(await inLog());
      }
    }
    // One event more than the page tells whether there are more; the page keeps the newest.
    return {
      candidates: page.slice(0, limit).map(({ seq: _, ...c }) => c),
      more: page.length > limit,
    };
  },
};
