import type { Kysely, RawBuilder } from "kysely";
import { sql } from "../internal/kysely.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type CandidateFilter,
  type FoundCandidates,
  SEARCH_CANDIDATES,
  substringScore,
} from "./search-rank.js";
import { bigrams, containsPattern, markedExcerpt, type SearchTerms } from "./search-terms.js";

const TRUE = sql<boolean>`true`;
const FALSE = sql<boolean>`false`;

function all(conditions: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return conditions.length === 0 ? TRUE : sql`(${sql.join(conditions, sql` AND `)})`;
}

/**
 * PostgreSQL search (migrations 001 and 006). Words: each table's GIN-indexed tsvector
 * (`english`, every term a prefix), ranked with ts_rank_cd, ts_headline on the hits. CJK terms:
 * the GIN-indexed bigram vector search_cjk (a word is the phrase of its bigrams), a
 * one-character term by ILIKE; events by ILIKE, newest first. At most SEARCH_CANDIDATES
 * entities and evidence records, and the newest `limit` matching events, are ranked.
 */
export async function postgresCandidates(
  db: Kysely<LedgerSchema>,
  terms: SearchTerms,
  filter: CandidateFilter,
  limit: number,
): Promise<FoundCandidates> {
  const wants = (kind: string) => filter.docKinds === null || filter.docKinds.includes(kind);
  const entityKinds = filter.docKinds?.filter((k) => k !== "evidence" && k !== "event") ?? null;
  const words = terms.words
    .map((t) => `${t.replace(/[^\p{L}\p{N}_]/gu, "")}:*`)
    .filter((t) => t !== ":*");
  const wordQuery = words.length === 0 ? null : words.join(" & ");
  const phrases = terms.cjk.filter((t) => [...t].length >= 2);
  const cjkQuery =
    phrases.length === 0
      ? null
      : phrases
          .map(
            (t) =>
              `(${bigrams(t)
                .map((b) => `'${b}'`)
                .join(" <-> ")})`,
          )
          .join(" & ");
  const singles = terms.cjk.filter((t) => [...t].length < 2);
  const substring = terms.cjk.length > 0;

  const matches = (tsv: string, cjk: string, text: RawBuilder<unknown>) =>
    all([
      ...(wordQuery === null ? [] : [sql`${sql.ref(tsv)} @@ to_tsquery('english', ${wordQuery})`]),
      ...(cjkQuery === null ? [] : [sql`${sql.ref(cjk)} @@ to_tsquery('simple', ${cjkQuery})`]),
      ...singles.map((t) => sql`${text} ILIKE ${containsPattern(t)}`),
    ]);
  const rank = (tsv: string, cjk: string) =>
    sql.join(
      [
        wordQuery === null
          ? sql`0`
          : sql`ts_rank_cd(${sql.ref(tsv)}, to_tsquery('english', ${wordQuery}))`,
        cjkQuery === null
          ? sql`0`
          : sql`ts_rank_cd(${sql.ref(cjk)}, to_tsquery('simple', ${cjkQuery}))`,
      ],
      sql` + `,
    );

  const entityText = sql`coalesce(e.summary, '') || ' ' || e.body || ' ' || coalesce(e.attributes::jsonb ->> 'next_action', '')`;
  const entityWhere = all([
    matches("e.search_tsv", "e.search_cjk", sql`(e.title || ' ' || ${entityText})`),
    entityKinds === null
      ? TRUE
      : entityKinds.length === 0
        ? FALSE
        : sql`e.kind IN (${sql.join(entityKinds)})`,
    filter.work === null ? TRUE : sql`e.key = ${filter.work}`,
  ]);
  const evidenceWhere = all([
    matches("v.search_tsv", "v.search_cjk", sql`(v.external_key || ' ' || v.summary)`),
    wants("evidence") ? TRUE : FALSE,
    filter.work === null ? TRUE : sql`v.work = ${filter.work}`,
  ]);
  const { rows: records } = await sql<{
    doc_kind: string;
    ref: string;
    title: string;
    text: string;
    score: number;
  }>`
    (SELECT e.kind AS doc_kind, e.key AS ref, e.title, ${entityText} AS text,
            ${rank("e.search_tsv", "e.search_cjk")} AS score
       FROM entities e WHERE ${entityWhere} LIMIT ${SEARCH_CANDIDATES})
    UNION ALL
    (SELECT 'evidence', v.external_key, v.external_key, v.summary,
            ${rank("v.search_tsv", "v.search_cjk")}
       FROM evidence v WHERE ${evidenceWhere} LIMIT ${SEARCH_CANDIDATES})`.execute(db);

  const eventWhere = all([
    substring
      ? all(
          terms.all.map(
            (t) => sql`(coalesce(ev.summary, '') || ' ' || ev.type) ILIKE ${containsPattern(t)}`,
          ),
        )
      : sql`ev.search_tsv @@ to_tsquery('english', ${wordQuery ?? ""})`,
    filter.work === null ? TRUE : sql`ev.work = ${filter.work}`,
  ]);
  const { rows: events } = wants("event")
    ? await sql<{ ref: string; title: string; text: string; score: number }>`
        SELECT ev.id AS ref, ev.type AS title, coalesce(ev.summary, '') AS text,
               ${substring ? sql`0` : sql`ts_rank_cd(ev.search_tsv, to_tsquery('english', ${wordQuery ?? ""}))`} AS score
          FROM events ev WHERE ${eventWhere} ORDER BY ev.seq DESC LIMIT ${limit + 1}`.execute(db)
    : { rows: [] };
  // One event more than the page tells whether there are more; the page keeps the newest.
  const more = events.length > limit;

  const found = [
    ...records.map((r) => ({ ...r, score: Number(r.score) })),
    ...events.slice(0, limit).map((r) => ({ ...r, doc_kind: "event", score: Number(r.score) })),
  ];
  if (substring) {
    const candidates = found.map((r) => ({
      doc_kind: r.doc_kind,
      ref: r.ref,
      score: substringScore(r.title, r.text, terms.all),
      snippet: markedExcerpt(r.text.trim() === "" ? r.title : r.text, terms.all),
    }));
    return { candidates, more };
  }
  // Snippets only for the hits that will be returned.
  found.sort((a, b) => b.score - a.score || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  const top = found.slice(0, limit + 1);
  const opts = "StartSel=[, StopSel=], MaxWords=24, MinWords=6, ShortWord=2";
  const snippets =
    top.length === 0
      ? []
      : (
          await sql<{ snippet: string }>`
            SELECT ts_headline('english', t.text, to_tsquery('english', ${wordQuery ?? ""}), ${opts}) AS snippet
              FROM unnest(${top.map((r) => r.text)}::text[]) WITH ORDINALITY AS t(text, n) ORDER BY t.n`.execute(
            db,
          )
        ).rows;
  const candidates = top.map((r, i) => ({
    doc_kind: r.doc_kind,
    ref: r.ref,
    score: r.score,
    snippet: snippets[i]?.snippet || null,
  }));
  return { candidates, more: more || found.length > limit + 1 };
}
