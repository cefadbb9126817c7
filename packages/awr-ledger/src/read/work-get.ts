import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { redactSecretStrings } from "../secrets/index.js";
import type { AcceptanceCriterion } from "../sources/adapters/yaml-ledger-v1.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type WorkEvidenceView, workEvidenceView } from "../work/evidence-view.js";
import {
  acceptanceOf,
  type DependencyView,
  dependencyViews,
  type EntityView,
  type SourceRef,
  stringOf,
  stringsOf,
  workNotFound,
} from "./entity-view.js";
import type { Derivation, Projection } from "./projection.js";
import { projectionAt } from "./projection-cache.js";

export interface WorkGetInput {
  work: string;
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
  evidence: { source: unknown[]; recorded: WorkEvidenceView[] };
}

/** Decisions naming each work item with `work=`, by their positions among the decisions. */
const DECISIONS_BY_WORK: Derivation<ReadonlyMap<string, readonly number[]>> = {
  build(projection) {
    const links = new Map<string, number[]>();
    for (const [position, decision] of projection.ofKind("decision").entries()) {
      const works = decision.attributes["work"];
      if (!Array.isArray(works)) continue;
      for (const work of new Set(works as string[])) {
        const list = links.get(work);
        if (list === undefined) links.set(work, [position]);
        else list.push(position);
      }
    }
    return links;
  },
  update(value, _prev, next, changed) {
    const decisionChanged = changed.some((key) => next.slot(key)?.kind === "decision");
    return decisionChanged ? this.build(next) : value;
  },
};

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
  const projection = await projectionAt(db, revision);
  const work = projection.entity(input.work);
  if (work?.kind !== "work") throw workNotFound(input.work);
  const recorded = await recordedEvidence(db, work.key);
  const linked = (key: string | null): LinkedEntity | null => {
    const entity = key === null ? undefined : projection.entity(key);
    return entity === undefined ? null : linkedEntity(entity);
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
    dependencies: dependencyViews(projection, work.key),
    dependents: (projection.dependents.get(work.key) ?? []).map((d) => ({
      work: d.work,
      required: d.required,
    })),
    goal: linked(stringOf(work, "goal")),
    milestone: linked(stringOf(work, "milestone")),
    decisions: linkedDecisions(projection, work.key, stringsOf(work, "decisions")),
    // Recorded evidence is runtime text as stored: a string holding a credential (kept from
    // before the secret policy) is shown as `[redacted]`.
    evidence: {
      source: (work.attributes["evidence"] as unknown[] | undefined) ?? [],
      recorded: redactSecretStrings(recorded),
    },
  };
}

const linkedEntity = (entity: EntityView): LinkedEntity => ({
  key: entity.key,
  title: entity.title,
  status: entity.status,
  source: entity.source,
});

/** Decisions named by the item's `decisions:` list or naming the item with `work=`, in source order. */
export function linkedDecisions(
  projection: Projection,
  workKey: string,
  named: readonly string[],
): LinkedEntity[] {
  const positions = new Set(projection.derive(DECISIONS_BY_WORK).get(workKey));
  for (const key of named) {
    const slot = projection.slot(key);
    if (slot?.kind === "decision") positions.add(slot.index);
  }
  const decisions = projection.ofKind("decision");
  return [...positions]
    .sort((a, b) => a - b)
    .map((position) => linkedEntity(decisions[position] as EntityView));
}

export async function recordedEvidence(
  db: Kysely<LedgerSchema>,
  workKey: string,
): Promise<WorkEvidenceView[]> {
  const rows = await db
    .selectFrom("evidence")
    .selectAll()
    .where("work", "=", workKey)
    .orderBy("revision")
    .execute();
  return rows.map(workEvidenceView);
}
