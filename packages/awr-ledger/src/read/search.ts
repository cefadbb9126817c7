import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { eventTextVisibleSql } from "../runtime/conversation-privacy.js";
import type { StorageDialect } from "../storage/dialect.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  byScoreThenRef,
  type Candidate,
  type CandidateFilter,
  type SearchEngine,
} from "../storage/search-rank.js";
import { type SearchTerms, searchTerms } from "../storage/search-terms.js";
import { readStateAt } from "./projection-cache.js";
import { memoAt, memoIn } from "./read-cache.js";
import { keyMatches, searchDetails, structuredCandidates } from "./search-details.js";
import type { SearchHit } from "./search-hit.js";
import type { SearchKind } from "./search-kinds.js";
import { notJournalReceiptSql } from "./search-receipts.js";
import { withoutSecrets } from "./search-redaction.js";

export type { SearchHit } from "./search-hit.js";
export { SEARCH_KINDS, type SearchKind } from "./search-kinds.js";

/** Bumped when what is indexed for search, or how, changes (reported as index_policy_version). */
export const SEARCH_INDEX_POLICY_VERSION = 2;

export interface SearchInput {
  /** Words to find (1..500 characters); optional when a filter is given. */
  text?: string | undefined;
  /** The earlier name of `text`, still accepted. */
  query?: string | undefined;
  kind?: SearchKind | undefined;
  /** Only hits with this status (a rule's severity, an evidence record's level). */
  status?: string | undefined;
  /** Only the work item with this key, its evidence and its events. */
  work?: string | undefined;
  /** 1..100, default 10. */
  limit?: number | undefined;
}

export interface SearchResult {
  project_revision: number;
  hits: SearchHit[];
  /** True when more hits matched than `limit`. */
  truncated: boolean;
  query: {
    text: string | null;
    kind: string | null;
    status: string | null;
    work: string | null;
    limit: number;
  };
  index_policy_version: number;
}

/** Which doc kinds a `kind` filter selects. */
const DOC_KINDS: Record<SearchKind, readonly string[]> = {
  goal: ["goal"],
  plan: ["plan", "milestone"],
  rule: ["rule"],
  work_item: ["work"],
  work: ["work"],
  decision: ["decision"],
  evidence: ["evidence"],
  event: ["event"],
};

function optionalString(input: SearchInput, name: "status" | "work"): string | null {
  const value = input[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.trim() === "") {
    throw new LedgerError("InvalidInput", `${name} must be a non-empty string when given.`);
  }
  return value;
}

/**
 * awr_search (docs/compatibility/sources.md): full text over work items, goals, plans (and
 * milestones), rules, decisions, evidence and event types/summaries (never event payloads), in
 * any language, with optional `kind`, `status` and `work` filters; without `text`, the records
 * matching the filters in kind and key order. A query that is a record's key (`CSV-2`,
 * `ADR-0001`) returns that record first. Every term must match: a word as a prefix, a CJK word
 * anywhere inside a text.
 *
 * Bounded at scale: only the first SEARCH_CANDIDATES matching records (and, of events, the
 * newest `limit` matches) are ranked; `status` applies to those. Memoised per revision.
 */
export async function search(
  db: Kysely<LedgerSchema>,
  dialect: StorageDialect,
  input: SearchInput,
  revision: number,
  reader: string,
): Promise<SearchResult> {
  const raw = input.text ?? input.query;
  if (
    raw !== undefined &&
    (typeof raw !== "string" || raw.trim() === "" || [...raw].length > LIMITS.searchTextCharacters)
  ) {
    throw new LedgerError(
      "InvalidInput",
      `text must contain 1..${LIMITS.searchTextCharacters} characters, e.g. { text: "checkout" }.`,
    );
  }
  // One of SEARCH_KINDS: the catalog's schema admitted it.
  const kind = input.kind ?? null;
  const status = optionalString(input, "status");
  const work = optionalString(input, "work");
  const limit = input.limit ?? LIMITS.limit.default;
  const terms = raw === undefined ? undefined : searchTerms(raw);
  if (terms !== undefined && terms.all.length === 0) {
    throw new LedgerError(
      "InvalidInput",
      'text must contain letters or digits to search for, e.g. { text: "checkout" }.',
    );
  }
  if (raw === undefined && kind === null && status === null && work === null) {
    throw new LedgerError(
      "InvalidInput",
      'give text to search for, or a kind, status or work filter, e.g. { text: "checkout" }.',
    );
  }
  const filter: CandidateFilter = {
    docKinds: kind === null ? null : DOC_KINDS[kind],
    work,
    reader,
    eventTextVisible: (alias) => eventTextVisibleSql(reader, alias),
    notJournalReceipt: notJournalReceiptSql,
  };
  const query = { text: raw ?? null, kind, status, work, limit };
  const memoKey = `search:${JSON.stringify(query)}`;
  // Memoised per revision like the other reads (read-cache.ts), per reader since the events a
  // reader sees are its own (the record memos below are shared); callers get their own copies.
  const found = await memoAt(db, revision, `${memoKey}:${JSON.stringify(reader)}`, async () => {
    // One more than the page tells whether it was truncated; with a status filter, more
    // candidates are ranked so the filter still fills the page.
    const want = status === null ? limit + 1 : Math.max(limit + 1, 100);
    const { projection, clock } = await readStateAt(db, revision);
    if (raw === undefined || terms === undefined) {
      const candidates = await structuredCandidates(db, filter);
      const hits = await searchDetails(db, projection, candidates, status);
      // Without text every hit ranks 0: in kind, then key order.
      hits.sort((a, b) =>
        a.kind === b.kind ? (a.external_key < b.external_key ? -1 : 1) : a.kind < b.kind ? -1 : 1,
      );
      return { hits: hits.slice(0, limit), truncated: hits.length > limit };
    }
    const engine = dialect.search;
    // The record half (entities, evidence) depends on nothing else, so it outlives revisions
    // (docs/design/read-caching.md): which records match and how they rank, for as long as no
    // searchable text changed (the projection's text generation, the evidence generation);
    // their hits (status and the rest) for as long as the projection and evidence stand still.
    // Both pairs only grow, so their sums change whenever either does. A write that only
    // appends events, as almost every journaled write does, ranks only the events again; a
    // transition that changes only a status re-reads no index.
    const matched = await memoIn(
      db,
      "search-text",
      projection.textGeneration + clock.evidence,
      memoKey,
      () => recordCandidates(db, engine, { raw, terms, filter }, want - 1),
    );
    const records = await memoIn(
      db,
      "search-records",
      projection.generation + clock.evidence,
      memoKey,
      async () => ({
        byKey: await searchDetails(db, projection, matched.byKey, status),
        byText: await searchDetails(db, projection, matched.byText, status),
      }),
    );
    const events = await engine.events(db, terms, filter, want - 1, matched.found);
    const eventHits = await searchDetails(db, projection, events.candidates, status);
    const hits = [...records.byKey, ...[...records.byText, ...eventHits].sort(byRankThenKey)];
    return {
      hits: hits.slice(0, limit),
      truncated: matched.more || events.more || hits.length > limit,
    };
  });
  return {
    project_revision: revision,
    hits: (await withoutSecrets(db, found.hits)).map((h) => ({
      ...h,
      source_ref: h.source_ref === null ? null : { ...h.source_ref },
    })),
    truncated: found.truncated,
    query,
    index_policy_version: SEARCH_INDEX_POLICY_VERSION,
  };
}

interface RecordCandidates {
  /** Records whose key is the query, first whatever their text scores. */
  byKey: Candidate[];
  /** The other matching records, best first. */
  byText: Candidate[];
  /** How many records the engine found by text (before the key matches were taken out). */
  found: number;
  more: boolean;
}

/** The matches among entities and evidence: a function of their searchable text alone. */
async function recordCandidates(
  db: Kysely<LedgerSchema>,
  engine: SearchEngine,
  q: { raw: string; terms: SearchTerms; filter: CandidateFilter },
  limit: number,
): Promise<RecordCandidates> {
  const [byText, byKey] = await Promise.all([
    engine.records(db, q.terms, q.filter, limit),
    keyMatches(db, q.raw, q.filter),
  ]);
  const key = (c: Candidate) => `${c.doc_kind}\u0000${c.ref}`;
  const seen = new Set(byKey.map(key));
  const rest = byText.candidates.filter((c) => !seen.has(key(c))).sort(byScoreThenRef);
  return { byKey, byText: rest, found: byText.candidates.length, more: byText.more };
}

/** byScoreThenRef on hits (rank is the negated score): how record and event hits interleave. */
function byRankThenKey(a: SearchHit, b: SearchHit): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  const order = a.external_key < b.external_key ? -1 : a.external_key > b.external_key ? 1 : 0;
  return a.kind === "event" && b.kind === "event" ? -order : order;
}
