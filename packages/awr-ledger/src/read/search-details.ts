import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type Candidate, type CandidateFilter, SEARCH_CANDIDATES } from "../storage/search-rank.js";
import { containsPattern } from "../storage/search-terms.js";
import type { Projection } from "./projection.js";
import type { SearchHit } from "./search-hit.js";

/** The search kind of a doc kind: `work` is `work_item`, a milestone is a plan. */
const HIT_KIND: Record<string, string> = { work: "work_item", milestone: "plan" };

/** Scores that put key matches before every text match: exact, then a key segment. */
const EXACT_KEY = 1e9;
const KEY_SEGMENT = 1e8;

function line(text: string, max = 280): string {
  const first = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return first.replace(/\s+/g, " ").trim().slice(0, max);
}

function wanted(filter: CandidateFilter, docKind: string): boolean {
  return filter.docKinds === null || filter.docKinds.includes(docKind);
}

/**
 * Records whose key is the query (`AWR-QA-003`, `goal#checkout`), or one of whose key
 * segments starts with it (`ADR-0001` in `docs/decisions/ADR-0001-feature.md`): these come
 * before the text matches. Only for a query without spaces.
 */
export async function keyMatches(
  db: Kysely<LedgerSchema>,
  raw: string,
  filter: CandidateFilter,
): Promise<Candidate[]> {
  const q = raw.trim();
  if (/\s/.test(q) || q.length > LIMITS.searchKey.characters) return [];
  const lower = q.toLowerCase();
  const entities = await db
    .selectFrom("entities")
    .select(["kind", "key"])
    .where((eb) => eb(eb.fn("lower", ["key"]), "like", containsPattern(lower)))
    .limit(LIMITS.searchKey.matches)
    .execute();
  const evidence = wanted(filter, "evidence")
    ? await db
        .selectFrom("evidence")
        .select(["external_key", "work"])
        .where("external_key", "=", q)
        .execute()
    : [];
  const segment = new RegExp(
    `(?:^|[#/:])${lower.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:$|[^\\p{L}\\p{N}])`,
    "u",
  );
  const out: Candidate[] = [];
  for (const e of entities) {
    if (!wanted(filter, e.kind) || (filter.work !== null && e.key !== filter.work)) continue;
    const key = e.key.toLowerCase();
    const score =
      key === lower || key.endsWith(`#${lower}`) ? EXACT_KEY : segment.test(key) ? KEY_SEGMENT : 0;
    if (score > 0) out.push({ doc_kind: e.kind, ref: e.key, score, snippet: null });
  }
  for (const v of evidence) {
    if (filter.work === null || v.work === filter.work) {
      out.push({ doc_kind: "evidence", ref: v.external_key, score: EXACT_KEY, snippet: null });
    }
  }
  return out.sort((a, b) => b.score - a.score || (a.ref < b.ref ? -1 : 1));
}

/** Without text: the records matching the filters, at most SEARCH_CANDIDATES of each table. */
export async function structuredCandidates(
  db: Kysely<LedgerSchema>,
  filter: CandidateFilter,
): Promise<Candidate[]> {
  const kinds = filter.docKinds?.filter((k) => k !== "evidence" && k !== "event") ?? null;
  let entities = db.selectFrom("entities").select(["kind", "key"]);
  if (kinds !== null) entities = entities.where("kind", "in", kinds);
  if (filter.work !== null) entities = entities.where("key", "=", filter.work);
  const [e, v, ev] = await Promise.all([
    kinds?.length === 0
      ? []
      : entities.orderBy("kind").orderBy("key").limit(SEARCH_CANDIDATES).execute(),
    wanted(filter, "evidence")
      ? (filter.work === null
          ? db.selectFrom("evidence").select("external_key")
          : db.selectFrom("evidence").select("external_key").where("work", "=", filter.work)
        )
          .orderBy("external_key")
          .limit(SEARCH_CANDIDATES)
          .execute()
      : [],
    wanted(filter, "event")
      ? (filter.work === null
          ? db.selectFrom("events").select("id")
          : db.selectFrom("events").select("id").where("work", "=", filter.work)
        )
          .where(filter.eventTextVisible())
          .orderBy("seq", "desc")
          .limit(SEARCH_CANDIDATES)
          .execute()
      : [],
  ]);
  return [
    ...e.map((r) => ({ doc_kind: r.kind, ref: r.key, score: 0, snippet: null })),
    ...v.map((r) => ({ doc_kind: "evidence", ref: r.external_key, score: 0, snippet: null })),
    ...ev.map((r) => ({ doc_kind: "event", ref: r.id, score: 0, snippet: null })),
  ];
}

function eventStatus(type: string, payload: string): string {
  try {
    const parsed = JSON.parse(payload) as { status?: unknown };
    if (typeof parsed.status === "string") return parsed.status;
  } catch {
    // A payload that is not JSON has no status.
  }
  return type.split(/[._]/).at(-1) ?? type;
}

/**
 * The hits of `candidates`, in their order: each with its record's details (status, work item,
 * source position, revision), only those with `status` when it is given. Entities' details come
 * from `projection` (read/projection-cache.ts), evidence and events from the database.
 */
export async function searchDetails(
  db: Kysely<LedgerSchema>,
  projection: Projection,
  candidates: readonly Candidate[],
  status: string | null,
): Promise<SearchHit[]> {
  const keys = (kind: (k: string) => boolean) => [
    ...new Set(candidates.filter((c) => kind(c.doc_kind)).map((c) => c.ref)),
  ];
  const evidenceKeys = keys((k) => k === "evidence");
  const eventIds = keys((k) => k === "event");
  const [evidence, events] = await Promise.all([
    evidenceKeys.length === 0
      ? []
      : db.selectFrom("evidence").selectAll().where("external_key", "in", evidenceKeys).execute(),
    eventIds.length === 0
      ? []
      : db
          .selectFrom("events")
          .select(["id", "type", "summary", "payload", "work", "revision"])
          .where("id", "in", eventIds)
          .execute(),
  ]);
  const byEvidence = new Map(evidence.map((r) => [r.external_key, r]));
  const byEvent = new Map(events.map((r) => [r.id, r]));
  const hits: SearchHit[] = [];
  for (const c of candidates) {
    let hit: SearchHit | undefined;
    if (c.doc_kind === "event") {
      const r = byEvent.get(c.ref);
      if (r !== undefined) {
        const summary = line(r.summary ?? r.type);
        hit = {
          id: r.id,
          kind: "event",
          external_key: r.id,
          title: r.type,
          summary,
          snippet: c.snippet ?? summary,
          status: eventStatus(r.type, r.payload),
          work_item_key: r.work,
          source_ref: null,
          source_freshness: null,
          origin: "runtime",
          revision: Number(r.revision),
          rank: -c.score,
        };
      }
    } else if (c.doc_kind === "evidence") {
      const r = byEvidence.get(c.ref);
      if (r !== undefined) {
        const summary = line(r.summary);
        hit = {
          id: r.id,
          kind: "evidence",
          external_key: r.external_key,
          title: r.external_key,
          summary,
          snippet: c.snippet ?? summary,
          status: r.level,
          work_item_key: r.work,
          source_ref: null,
          source_freshness: null,
          origin: "runtime",
          revision: Number(r.revision),
          rank: -c.score,
        };
      }
    } else {
      const r = projection.entity(c.ref);
      if (r !== undefined && r.kind === c.doc_kind) {
        const summary = line(r.summary ?? r.title);
        const severity = r.attributes["severity"];
        hit = {
          id: r.id,
          kind: HIT_KIND[r.kind] ?? r.kind,
          external_key: r.key,
          title: r.title,
          summary,
          snippet: c.snippet ?? summary,
          status: r.kind === "rule" && typeof severity === "string" ? severity : r.status,
          work_item_key: r.kind === "work" ? r.key : null,
          source_ref: { ...r.source },
          source_freshness: "fresh",
          origin: "source",
          revision: projection.revisions.get(r.key) ?? 0,
          rank: -c.score,
        };
      }
    }
    if (hit !== undefined && (status === null || hit.status === status)) hits.push(hit);
  }
  return hits;
}
