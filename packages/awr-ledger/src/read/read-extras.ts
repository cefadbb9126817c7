import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type ActiveClaim, activeClaims, expiredClaims } from "./entity-view.js";
import type { ProjectStatusResult } from "./project-status.js";
import type { WorkGetResult } from "./work-get.js";
import type { WorkReadyResult } from "./work-ready.js";

// What the tools add to the read models: claims (expired ones shown as
// expired), evidence currency against a source_sha, and the status views and filters.

/** How many lapsed claims a work item shows. */
const EXPIRED_SHOWN = LIMITS.expiredClaimsPerWork;

/**
 * Whether recorded evidence holds for the branch and `source_sha` the caller asks about: a record
 * of another branch (main included) is only ever historical; a record of the branch is current
 * when it was verified at the requested SHA, historical at another, unknown without both
 * (docs/design/work-branches.md R4).
 */
export type EvidenceCurrency = "current" | "historical" | "unknown";

export interface EvidenceAssessment {
  currency: EvidenceCurrency;
  /** Why it is not current (empty when it is). */
  reasons: string[];
}

export function assessEvidence(
  evidence: { source_sha: string | null; branch_id: string | null },
  requested: string | undefined,
  branch: string | null,
): EvidenceAssessment {
  if (evidence.branch_id !== branch) {
    return { currency: "historical", reasons: ["evidence belongs to a different branch"] };
  }
  if (requested === undefined || evidence.source_sha === null) {
    return {
      currency: "unknown",
      reasons: ["recorded and requested source SHA are needed to determine currency"],
    };
  }
  return evidence.source_sha.toLowerCase() === requested.toLowerCase()
    ? { currency: "current", reasons: [] }
    : { currency: "historical", reasons: ["evidence was recorded for a different source SHA"] };
}

export type WorkGetView = Omit<WorkGetResult, "work" | "evidence"> & {
  work: WorkGetResult["work"] & { active_claims: ActiveClaim[]; expired_claims: ActiveClaim[] };
  evidence: {
    source: unknown[];
    recorded: (WorkGetResult["evidence"]["recorded"][number] & EvidenceAssessment)[];
  };
  /** The SHA and the branch (null = main) evidence currency was judged against. */
  evidence_currency_basis: { requested_source_sha: string | null; branch_id: string | null };
};

/**
 * awr_work_get's answer on `branch`: the item's claims in force and lapsed there, and evidence
 * currency judged for that branch.
 */
export async function workGetView(
  db: Kysely<LedgerSchema>,
  result: WorkGetResult,
  sourceSha: string | undefined,
  branch: string | null,
): Promise<WorkGetView> {
  const key = result.work.work;
  const [active, expired] = await Promise.all([
    activeClaims(db, branch),
    expiredClaims(db, { work: key, limit: EXPIRED_SHOWN, branch }),
  ]);
  return {
    ...result,
    work: {
      ...result.work,
      active_claims: active.filter((c) => c.work === key),
      expired_claims: expired,
    },
    evidence: {
      source: result.evidence.source,
      recorded: result.evidence.recorded.map((e) => ({
        ...e,
        ...assessEvidence(e, sourceSha, branch),
      })),
    },
    evidence_currency_basis: { requested_source_sha: sourceSha ?? null, branch_id: branch },
  };
}

/** awr_work_ready's answer: a ready item whose last claim lapsed says so in its diagnostics. */
export async function workReadyView(
  db: Kysely<LedgerSchema>,
  result: WorkReadyResult,
): Promise<WorkReadyResult> {
  if (result.ready.length === 0) return result;
  const expired = await expiredClaims(db, {
    limit: LIMITS.expiredClaimsShown,
    branch: result.branch_id,
  });
  const latest = new Map<string, ActiveClaim>();
  for (const claim of expired) if (!latest.has(claim.work)) latest.set(claim.work, claim);
  return {
    ...result,
    ready: result.ready.map((item) => {
      const claim = latest.get(item.external_key);
      if (claim === undefined) return item;
      const at = claim.expires_at === null ? "" : ` at ${new Date(claim.expires_at).toISOString()}`;
      const detail = `claim ${claim.id} of session ${claim.session_id} (${claim.agent_id}) expired${at}; the item is free to claim`;
      const note = { code: "claim_expired" as const, work_item_key: item.external_key, detail };
      return { ...item, diagnostics: [...item.diagnostics, note] };
    }),
  };
}

export interface StatusFilters {
  view?: "action" | "full" | "summary" | undefined;
  work?: string[] | undefined;
  goal?: string | undefined;
  milestone?: string | undefined;
  source_sha?: string | undefined;
}

export interface ScopedWork {
  work: string;
  title: string;
  status: string;
  goal: string | null;
  milestone: string | null;
  next_action: string | null;
}

/** Fields the answer type leaves optional (the earlier summary left them out). */
type Detail = "current" | "organisation_gaps" | "entity_counts";

/**
 * awr_project_status's answer for any view: full's fields as the full view types them (the
 * action view's `current` entries are its own briefs, keyed by `key`), and the action view's own
 * queues and blocks as optional (an answer holds the fields of the view asked
 * for; `view` says which).
 */
export type ProjectStatusAnswer = Omit<ProjectStatusView, "view"> & {
  view: "action" | "full" | "summary";
  schema_version?: number;
  waiting_count?: number;
  ready?: Record<string, unknown>[];
  waiting?: Record<string, unknown>[];
  blocked?: Record<string, unknown>[];
  [field: string]: unknown;
};

export type ProjectStatusView = Omit<ProjectStatusResult, Detail> &
  Partial<Pick<ProjectStatusResult, Detail>> & {
    view: "full" | "summary";
    organisation_gap_count?: number;
    scope?: { work: string[] | null; goal: string | null; milestone: string | null };
    scoped_work?: ScopedWork[];
    source_sha?: string;
    stale_evidence?: { external_key: string; work: string | null; source_sha: string | null }[];
  };

/**
 * awr_project_status view=full with its filters (the action and summary views are status/'s):
 * `work`, `goal` and `milestone` add the matching items as `scoped_work` (the counts stay
 * project-wide); `source_sha` reports recorded evidence verified at another revision as
 * `stale_evidence`.
 */
export async function projectStatusView(
  db: Kysely<LedgerSchema>,
  result: ProjectStatusResult,
  filters: StatusFilters,
): Promise<ProjectStatusView> {
  const view: ProjectStatusView & Record<string, unknown> = {
    ...result,
    view: "full",
  };
  const scoped =
    filters.work !== undefined || filters.goal !== undefined || filters.milestone !== undefined;
  if (scoped) {
    const rows = await db.selectFrom("entities").selectAll().where("kind", "=", "work").execute();
    const attr = (row: { attributes: string }, name: string) => {
      const value = (JSON.parse(row.attributes) as Record<string, unknown>)[name];
      return typeof value === "string" ? value : null;
    };
    view["scope"] = {
      work: filters.work ?? null,
      goal: filters.goal ?? null,
      milestone: filters.milestone ?? null,
    };
    view["scoped_work"] = rows
      .filter((row) => filters.work === undefined || filters.work.includes(row.key))
      .filter((row) => filters.goal === undefined || attr(row, "goal") === filters.goal)
      .filter(
        (row) => filters.milestone === undefined || attr(row, "milestone") === filters.milestone,
      )
      .sort(
        (a, b) =>
          (a.source_path < b.source_path ? -1 : a.source_path > b.source_path ? 1 : 0) ||
          Number(a.ordinal) - Number(b.ordinal),
      )
      .map(
        (row): ScopedWork => ({
          work: row.key,
          title: row.title,
          status: row.status,
          goal: attr(row, "goal"),
          milestone: attr(row, "milestone"),
          next_action: attr(row, "next_action"),
        }),
      );
  }
  if (filters.source_sha !== undefined) {
    const sha = filters.source_sha;
    const evidence = await db
      .selectFrom("evidence")
      .select(["external_key", "work", "source_sha", "branch"])
      .orderBy("revision")
      .execute();
    view["source_sha"] = sha;
    view["stale_evidence"] = evidence
      .filter(
        (e) =>
          assessEvidence(
            { source_sha: e.source_sha ?? null, branch_id: e.branch ?? null },
            sha,
            result.branch_id,
          ).currency === "historical",
      )
      .map((e) => ({ external_key: e.external_key, work: e.work, source_sha: e.source_sha }));
  }
  return view;
}
