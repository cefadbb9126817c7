import type { Kysely, RawBuilder, SqlBool } from "kysely";
import type { LedgerSchema } from "./schema.js";
import type { SearchTerms } from "./search-terms.js";

/**
 * How many matching work items, goals, plans, rules, decisions, milestones and evidence records
 * (each group on PostgreSQL) are ranked per query. Past this many matches the query is too broad
 * for the ranking among them to mean much, and ranking all of them made search grow with the
 * ledger.
 */
export const SEARCH_CANDIDATES = 500;

/** A match found by a backend, before its details are read: higher `score` is better. */
export interface Candidate {
  /** The entity kind (work, goal, plan, rule, decision, milestone), `evidence` or `event`. */
  doc_kind: string;
  /** The entity key, the evidence external_key, or the event id. */
  ref: string;
  score: number;
  /** Matching text with the terms marked as [term]; null when the backend has none. */
  snippet: string | null;
}

/** A backend's matches: records (best first up to one past the page), or the newest events. */
export interface FoundCandidates {
  candidates: Candidate[];
  /** More matched than were returned. */
  more: boolean;
}

export interface CandidateFilter {
  /** Only these doc kinds (null: all). */
  docKinds: readonly string[] | null;
  /** Only records of this work item: the item, its evidence and its events (null: any). */
  work: string | null;
  /**
   * The reading client: another client's conversation events are neither matched nor listed
   * (docs/design/conversation-privacy.md). Records (entities, evidence) do not depend on it.
   */
  reader: string;
  /**
   * SQL condition: the events whose text `reader` may match (the columns of `events`, under
   * `alias` when given). A domain rule, so the search caller supplies it and every engine applies
   * the same one.
   */
  eventTextVisible(alias?: string): RawBuilder<SqlBool>;
  /**
   * SQL condition: the events search may return, which are all but the request journal's
   * receipts (for the engines that read the events table itself rather than an index without
   * them).
   */
  notJournalReceipt(alias?: string): RawBuilder<SqlBool>;
}

/** The score of a substring match: a term in the title counts 4, each in the body 1 (at most 5). */
export function substringScore(title: string, body: string, terms: readonly string[]): number {
  const t = title.toLowerCase();
  const b = body.toLowerCase();
  let score = 0;
  for (const term of terms.map((x) => x.toLowerCase())) {
    if (t.includes(term)) score += 4;
    let count = 0;
    for (let at = b.indexOf(term); at >= 0 && count < 5; at = b.indexOf(term, at + term.length))
      count++;
    score += count;
  }
  return score;
}

/**
 * The order candidates are returned in: best score first, then by ref, except that of two
 * events the newer comes first (event ids are ULIDs, so the larger id is the newer event).
 */
export function byScoreThenRef(a: Candidate, b: Candidate): number {
  if (a.score !== b.score) return b.score - a.score;
  const order = a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0;
  return a.doc_kind === "event" && b.doc_kind === "event" ? -order : order;
}

/**
 * A backend's text search, in two halves that change at different times: records (entities and
 * evidence) move only with the projection and evidence, events with almost every write.
 */
export interface SearchEngine {
  /** Matching entities and evidence records, up to `limit` + 1 of the best (or every one ranked). */
  records(
    db: Kysely<LedgerSchema>,
    terms: SearchTerms,
    filter: CandidateFilter,
    limit: number,
  ): Promise<FoundCandidates>;
  /**
   * The newest `limit` matching events. `records`: how many records matched, so the engine can
   * tell whether older events could still reach the page.
   */
  events(
    db: Kysely<LedgerSchema>,
    terms: SearchTerms,
    filter: CandidateFilter,
    limit: number,
    records: number,
  ): Promise<FoundCandidates>;
}
