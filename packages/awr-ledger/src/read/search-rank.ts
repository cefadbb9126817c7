import type { SearchHit } from "./search.js";

/**
 * How many matching work items, goals, plans, rules, decisions, milestones and evidence records
 * (each group on PostgreSQL) are ranked per query. Past this many matches the query is too broad
 * for the ranking among them to mean much, and ranking all of them made search grow with the
 * ledger.
 */
export const SEARCH_CANDIDATES = 500;

/** The order results are returned in: best score first, then by ref, as the SQL used to. */
export function byScoreThenRef(a: SearchHit, b: SearchHit): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0;
}
