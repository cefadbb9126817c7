import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import { type ActiveClaim, type EntityView, entityRevisions, stringOf } from "./entity-view.js";
import { memoAt } from "./read-cache.js";

/**
 * The compact view of a work item that status and ready answers list: `external_key` is the item's
 * key, `revision` the project revision that last indexed it, `source_revision` the one that last
 * indexed its source file. Reads answer only from fresh sources (stale ones are SourceStale), so
 * `freshness` is always `fresh`.
 */
export interface WorkBrief {
  id: string;
  external_key: string;
  title: string;
  status: string;
  raw_status: string;
  /** The summary (or the title when there is none), whitespace folded, at most 240 characters. */
  summary: string;
  priority: unknown;
  milestone: string | null;
  owner: string | null;
  next_action: string | null;
  blocker: string | null;
  revision: number | null;
  source_revision: number | null;
  freshness: "fresh";
}

/** Why an item is not (or not only) ready: a code, the item it is about and a sentence. */
export interface ReadyDiagnostic {
  code:
    | "optional_dependency_incomplete"
    | "required_dependency_incomplete"
    | "status_not_ready"
    | "active_claim"
    | "claim_expired";
  work_item_key: string;
  detail: string;
}

export type ReadyBrief = WorkBrief & {
  ready: boolean;
  diagnostics: ReadyDiagnostic[];
  active_claims: Omit<ActiveClaim, "work">[];
};

const SHORT = 240;

/** Whitespace folded to single spaces, cut at 240 characters with an ellipsis. */
export function shortText(text: string): string {
  const clean = text.split(/\s+/).filter(Boolean).join(" ");
  const chars = [...clean];
  return chars.length > SHORT ? `${chars.slice(0, SHORT).join("")}…` : clean;
}

/** Revisions of items and source files at a project revision, for briefs. */
export interface BriefRevisions {
  entities: ReadonlyMap<string, number>;
  sources: ReadonlyMap<string, number>;
}

export function briefRevisions(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<BriefRevisions> {
  return memoAt(db, revision, "brief-revisions", async () => {
    const [entities, sources] = await Promise.all([
      entityRevisions(db, revision),
      db.selectFrom("sources").select(["path", "indexed_revision"]).execute(),
    ]);
    return {
      entities,
      sources: new Map(sources.map((s) => [s.path, Number(s.indexed_revision)])),
    };
  });
}

export function workBrief(item: EntityView, revisions: BriefRevisions): WorkBrief {
  return {
    id: item.id,
    external_key: item.key,
    title: item.title,
    status: item.status,
    raw_status: item.raw_status ?? item.status,
    summary: shortText(item.summary === null || item.summary === "" ? item.title : item.summary),
    priority: item.attributes["priority"] ?? null,
    milestone: stringOf(item, "milestone"),
    owner: stringOf(item, "owner"),
    next_action: stringOf(item, "next_action"),
    blocker: stringOf(item, "blocker"),
    revision: revisions.entities.get(item.key) ?? null,
    source_revision: revisions.sources.get(item.source.path) ?? null,
    freshness: "fresh",
  };
}

export function readyBrief(
  item: EntityView,
  revisions: BriefRevisions,
  ready: boolean,
  diagnostics: readonly ReadyDiagnostic[],
  claims: readonly ActiveClaim[],
): ReadyBrief {
  return {
    ...workBrief(item, revisions),
    ready,
    diagnostics: [...diagnostics],
    active_claims: claims
      .filter((c) => c.work === item.key)
      .map(({ id, agent_id, session_id, expires_at }) => ({
        id,
        agent_id,
        session_id,
        expires_at,
      })),
  };
}
