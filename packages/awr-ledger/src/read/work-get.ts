import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import type { AcceptanceCriterion } from "../sources/adapters/yaml-ledger-v1.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  acceptanceOf,
  type DependencyView,
  dependenciesOf,
  entitiesOfKind,
  requireWork,
  type SourceRef,
  stringOf,
  stringsOf,
  toView,
} from "./entity-view.js";

export interface WorkGetInput {
  work: string;
}

export interface RecordedEvidence {
  external_key: string;
  evidence_type: string;
  level: string;
  summary: string;
  locator: string | null;
  scope: string[];
  sha256: string | null;
  source_sha: string | null;
  command: string | null;
  verified_at: string | null;
  session: string | null;
  revision: number;
}

export interface LinkedEntity {
  key: string;
  title: string;
  status: string;
  source: SourceRef;
}

export interface WorkGetResult {
  project_revision: number;
  work: {
    work: string;
    id: string;
    title: string;
    status: string;
    raw_status: string | null;
    summary: string | null;
    goal: string | null;
    milestone: string | null;
    required: boolean;
    priority: unknown;
    owner: string | null;
    next_action: string | null;
    blocker: string | null;
    tags: string[];
    paths: string[];
    /** The item's own kind (`feature`, `release`, ...), as the ledger writes it. */
    kind: string | null;
    /** Every goal the item names (`goal` is the first). */
    goals: string[];
    score: unknown;
    /** `evidence_level`, or `verification.evidence_level`, as the ledger writes it. */
    evidence_level: string | null;
    /**
     * Every other field of the item as the ledger writes it (`source_sections`, `verification`,
     * `deliverables` aside from paths, ...): kept, never interpreted.
     */
    extra: Record<string, unknown>;
    source: SourceRef;
  };
  acceptance: AcceptanceCriterion[];
  dependencies: DependencyView[];
  /** Work items that depend on this one. */
  dependents: { work: string; required: boolean }[];
  goal: LinkedEntity | null;
  milestone: LinkedEntity | null;
  decisions: LinkedEntity[];
  evidence: { source: unknown[]; recorded: RecordedEvidence[] };
}

export async function workGet(
  db: Kysely<LedgerSchema>,
  input: WorkGetInput,
  revision: number,
): Promise<WorkGetResult> {
  if (typeof input.work !== "string" || input.work.trim() === "") {
    throw new LedgerError(
      "InvalidInput",
      'work is required: pass the work item id, e.g. { work: "INVOICE-001" }.',
    );
  }
  const work = await requireWork(db, input.work);
  const [deps, dependents, decisions, recorded] = await Promise.all([
    dependenciesOf(db, [work.key]),
    db
      .selectFrom("dependencies")
      .select(["work_key", "required"])
      .where("depends_on", "=", work.key)
      .orderBy("work_key")
      .execute(),
    linkedDecisions(db, revision, work.key, stringsOf(work, "decisions")),
    recordedEvidence(db, work.key),
  ]);
  const linked = async (key: string | null): Promise<LinkedEntity | null> => {
    if (key === null) return null;
    const row = await db
      .selectFrom("entities")
      .selectAll()
      .where("key", "=", key)
      .executeTakeFirst();
    if (row === undefined) return null;
    const view = toView(row);
    return { key: view.key, title: view.title, status: view.status, source: view.source };
  };
  return {
    project_revision: revision,
    work: {
      work: work.key,
      id: work.id,
      title: work.title,
      status: work.status,
      raw_status: work.raw_status,
      summary: work.summary,
      goal: stringOf(work, "goal"),
      milestone: stringOf(work, "milestone"),
      required: work.attributes["required"] !== false,
      priority: work.attributes["priority"] ?? null,
      owner: stringOf(work, "owner"),
      next_action: stringOf(work, "next_action"),
      blocker: stringOf(work, "blocker"),
      tags: stringsOf(work, "tags"),
      paths: stringsOf(work, "paths"),
      kind: stringOf(work, "kind"),
      goals:
        work.attributes["goals"] === undefined
          ? [stringOf(work, "goal")].filter((g) => g !== null)
          : stringsOf(work, "goals"),
      score: work.attributes["score"] ?? null,
      evidence_level: stringOf(work, "evidence_level"),
      extra: { ...((work.attributes["extra"] as Record<string, unknown> | undefined) ?? {}) },
      source: work.source,
    },
    acceptance: acceptanceOf(work),
    dependencies: deps.get(work.key) ?? [],
    dependents: dependents.map((d) => ({ work: d.work_key, required: Number(d.required) === 1 })),
    goal: await linked(stringOf(work, "goal")),
    milestone: await linked(stringOf(work, "milestone")),
    decisions,
    evidence: { source: (work.attributes["evidence"] as unknown[] | undefined) ?? [], recorded },
  };
}

/** Decisions named by the item's `decisions:` list or naming the item with `work=`. */
export async function linkedDecisions(
  db: Kysely<LedgerSchema>,
  revision: number,
  workKey: string,
  named: string[],
): Promise<LinkedEntity[]> {
  const all = await entitiesOfKind(db, revision, "decision");
  return all
    .filter(
      (d) =>
        named.includes(d.key) ||
        ((d.attributes["work"] as string[] | undefined) ?? []).includes(workKey),
    )
    .map((d) => ({ key: d.key, title: d.title, status: d.status, source: d.source }));
}

export async function recordedEvidence(
  db: Kysely<LedgerSchema>,
  workKey: string,
): Promise<RecordedEvidence[]> {
  const rows = await db
    .selectFrom("evidence")
    .selectAll()
    .where("work", "=", workKey)
    .orderBy("revision")
    .execute();
  return rows.map((r) => ({
    external_key: r.external_key,
    evidence_type: r.evidence_type,
    level: r.level,
    summary: r.summary,
    locator: r.locator,
    scope: JSON.parse(r.scope) as string[],
    sha256: r.sha256,
    source_sha: r.source_sha ?? null,
    command: r.command,
    verified_at: r.verified_at,
    session: r.session,
    revision: Number(r.revision),
  }));
}
