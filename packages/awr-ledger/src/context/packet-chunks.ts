import type { EntityView } from "../read/entity-view.js";
import type { EventTable } from "../storage/schema.js";
import { type ContextChunk, chunk, type SelectedEntity } from "./context-records.js";
import type { ContextCompleteness } from "./context-types.js";
import type { ContextFacts } from "./gather-records.js";
import { possiblyHard, type RuleFact } from "./select-rules.js";
import type { WorkFact } from "./work-facts.js";

export interface PacketMeta {
  intent: string;
  selection_basis: string;
  session_id: string | null;
  after_revision: number;
  baseline_origin: string;
  project_revision: number;
}

const q = (value: string) => JSON.stringify(value);
const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();
const workEntity = (w: WorkFact): SelectedEntity => ({
  kind: "work_item",
  id: w.id,
  revision: w.revision,
});
const entityOf = (kind: string, e: EntityView, revision: number): SelectedEntity => ({
  kind,
  id: e.id,
  revision,
});
const ruleEntity = (r: RuleFact): SelectedEntity => ({
  kind: "rule",
  id: r.id,
  revision: r.revision,
});
const required = { required: true } as const;
const optional = (priority: number, recency: number) => ({ priority, recency });

/** Status, blocker and next action exactly as the source states them. */
export function stateLines(w: WorkFact): string {
  return [
    `Status: ${q(w.status)} (raw ${q(w.raw_status)})`,
    `Blocker present: ${w.blocker !== null}`,
    `Blocker: ${w.blocker ?? "none"}`,
    `Next action: ${w.next_action === "" ? "(none declared)" : w.next_action}`,
  ].join("\n");
}

export const ruleLines = (r: RuleFact, note?: string) =>
  [note, `Severity: ${r.severity ?? "unresolved"}`, `Scope: ${r.scope_text}`, r.text]
    .filter((l) => l !== undefined)
    .join("\n");

/**
 * Every chunk of an L1 packet. Required: the item's identity, state and acceptance; every
 * applicable hard rule and every hard rule whose applicability is unknown; each unresolved or
 * missing required dependency with its state; the selected goals; accepted linked decisions;
 * the delta baseline and the session's checkpoint; evidence gaps; the completeness verdict.
 * Everything else is optional, by priority: goal and work summaries, checkpoint digest, recent
 * events, resolved and optional dependencies, plan sections, dependents, soft and info rules,
 * evidence, other decisions, project events, sibling work.
 */
export function packetChunks(
  facts: ContextFacts,
  completeness: ContextCompleteness,
  meta: PacketMeta,
): ContextChunk[] {
  const { work } = facts;
  const rev = facts.revision_of;
  const chunks: ContextChunk[] = [
    chunk(
      "identity",
      "metadata",
      [
        `Intent: ${oneLine(meta.intent)}`,
        `Selection: ${meta.selection_basis}`,
        `Session: ${meta.session_id ?? "none"}`,
        `Phase: ${work.milestone ?? "unknown"}`,
        `Title: ${work.title}`,
      ].join("\n"),
      [],
      required,
    ),
    chunk(work.external_key, "work", stateLines(work), [workEntity(work)], required),
    chunk(
      "acceptance",
      "acceptance",
      work.acceptance.length === 0
        ? "(no acceptance criteria declared)"
        : work.acceptance
            .map((a, i) => `${i + 1}. ${a.text} [${a.id}; evidence level ${a.level}]`)
            .join("\n"),
      [workEntity(work)],
      required,
    ),
  ];
  if (work.summary !== "") {
    chunks.push(
      chunk("work-summary", "work", work.summary, [workEntity(work)], optional(20, work.revision)),
    );
  }

  for (const rule of facts.rules.hard) {
    chunks.push(chunk(rule.external_key, "rules", ruleLines(rule), [ruleEntity(rule)], required));
  }
  for (const match of facts.rules.unknown.filter(possiblyHard)) {
    const note = `Applicability unresolved: ${match.reasons.join("; ")}`;
    chunks.push(
      chunk(
        `unresolved-rule:${match.rule.external_key}`,
        "rules",
        ruleLines(match.rule, note),
        [ruleEntity(match.rule)],
        required,
      ),
    );
  }
  for (const [rules, priority] of [
    [facts.rules.soft, 50],
    [facts.rules.info, 70],
  ] as const) {
    for (const rule of rules) {
      chunks.push(
        chunk(
          rule.external_key,
          "rules",
          ruleLines(rule),
          [ruleEntity(rule)],
          optional(priority, rule.revision),
        ),
      );
    }
  }

  const { closure } = facts;
  for (const dep of closure.unresolved) {
    chunks.push(
      chunk(
        `required:${dep.external_key}`,
        "dependencies",
        `${dep.title}\n${stateLines(dep)}`,
        [workEntity(dep)],
        required,
      ),
    );
  }
  for (const key of closure.missing) {
    chunks.push(
      chunk(
        `missing:${key}`,
        "dependencies",
        `Required dependency ${key} is defined by no source; it is not satisfied.`,
        [],
        required,
      ),
    );
  }
  chunks.push(
    chunk(
      "dependency-summary",
      "dependencies",
      `Required dependencies (closure): ${closure.unresolved.length} unresolved, ${closure.resolved.length} resolved; ` +
        `${closure.missing.length} missing, ${closure.cycles.length} cycle members${closure.cycles.length > 0 ? ` (${closure.cycles.join(", ")})` : ""}.`,
      [],
      required,
    ),
  );
  for (const dep of closure.resolved) {
    chunks.push(
      chunk(
        `resolved:${dep.external_key}`,
        "dependencies",
        `${dep.title}\nStatus: ${q(dep.status)}`,
        [workEntity(dep)],
        optional(40, dep.revision),
      ),
    );
  }
  for (const dep of closure.optional) {
    chunks.push(
      chunk(
        `optional:${dep.external_key}`,
        "dependencies",
        `${dep.title} (optional dependency)\n${stateLines(dep)}`,
        [workEntity(dep)],
        optional(42, dep.revision),
      ),
    );
  }

  for (const goal of facts.goals) {
    const criteria = goal.attributes["success_criteria"];
    const lines = [goal.title, `Status: ${goal.status}`];
    if (Array.isArray(criteria) && criteria.length > 0)
      lines.push("Success criteria:", ...criteria.map(String));
    chunks.push(
      chunk(
        `goal:${goal.key}`,
        "goal",
        lines.join("\n"),
        [entityOf("goal", goal, rev(goal.key))],
        required,
      ),
    );
    const body = goal.body.trim();
    if (body !== "") {
      chunks.push(
        chunk(
          `goal-body:${goal.key}`,
          "goal",
          body,
          [entityOf("goal", goal, rev(goal.key))],
          optional(10, rev(goal.key)),
        ),
      );
    }
  }
  if (facts.milestone !== null) {
    const m = facts.milestone;
    chunks.push(
      chunk(
        `milestone:${m.key}`,
        "plan",
        [`${m.title}`, `Status: ${m.status}`, m.body.trim()].filter((l) => l !== "").join("\n"),
        [entityOf("milestone", m, rev(m.key))],
        optional(15, rev(m.key)),
      ),
    );
  }
  for (const plan of facts.plans) {
    chunks.push(
      chunk(
        `plan:${plan.key}`,
        "plan",
        [plan.title, `Status: ${plan.status}`, plan.body.trim()].filter((l) => l !== "").join("\n"),
        [entityOf("plan", plan, rev(plan.key))],
        optional(48, rev(plan.key)),
      ),
    );
  }

  for (const d of facts.decisions) {
    const affected = (d.attributes["work"] as string[] | undefined) ?? [];
    const text = [
      d.title,
      `Status: ${q(d.status)} (raw ${q(d.raw_status ?? d.status)})`,
      `Affected work: ${JSON.stringify(affected)}`,
      "Decision:",
      d.body.trim(),
    ].join("\n");
    const entities = [entityOf("decision", d, rev(d.key))];
    chunks.push(
      d.status === "accepted"
        ? chunk(`decision:${d.key}`, "decisions", text, entities, required)
        : chunk(`decision:${d.key}`, "decisions", text, entities, optional(57, rev(d.key))),
    );
  }

  const cp = facts.checkpoint;
  chunks.push(
    chunk(
      "delta-baseline",
      "delta",
      `Changes after project revision ${meta.after_revision} (${meta.baseline_origin}) through ${meta.project_revision}. ` +
        `Checkpoint: ${cp?.id ?? "none"}. Events shown: up to ${facts.work_events.length} of this item's and ${facts.project_events.length} project-wide.`,
      [],
      required,
    ),
  );
  if (cp !== null) {
    const entities = [{ kind: "checkpoint", id: cp.id, revision: cp.revision }];
    chunks.push(
      chunk(
        "checkpoint",
        "delta",
        [
          `Checkpoint context hash: ${cp.context_hash ?? "none"}`,
          "Checkpoint next action:",
          cp.next_action ?? "(none)",
          "Checkpoint open loops:",
          ...(cp.open_loops.length === 0 ? ["(none)"] : cp.open_loops),
        ].join("\n"),
        entities,
        required,
      ),
      chunk("checkpoint-digest", "delta", cp.digest, entities, optional(25, cp.revision)),
    );
  }
  const eventChunk = (e: EventTable, priority: number) =>
    chunk(
      `event:${e.id}`,
      "delta",
      `${e.type} at r${e.revision}${e.summary === null ? "" : `: ${oneLine(e.summary)}`}`,
      [{ kind: "event", id: e.id, revision: Number(e.revision) }],
      optional(priority, Number(e.revision)),
    );
  for (const e of facts.work_events) chunks.push(eventChunk(e, 30));
  for (const e of facts.project_events) chunks.push(eventChunk(e, 65));

  chunks.push(
    chunk(
      "evidence-gaps",
      "evidence",
      completeness.evidence_gaps.length === 0
        ? "No evidence gaps in the recorded metadata; compiling context runs no verification."
        : completeness.evidence_gaps
            .map((g) => `${g.code} [${g.reference}]: ${g.reason}`)
            .join("\n"),
      [],
      required,
    ),
  );
  for (const ev of facts.evidence) {
    chunks.push(
      chunk(
        `evidence:${ev.external_key}`,
        "evidence",
        [
          oneLine(ev.summary),
          `Type: ${ev.evidence_type}; level: ${ev.level}`,
          `Report: ${ev.locator ?? "none"}`,
          `Command: ${ev.command ?? "none"}`,
        ].join("\n"),
        [{ kind: "evidence", id: ev.id, revision: Number(ev.revision) }],
        optional(55, Number(ev.revision)),
      ),
    );
  }
  facts.source_evidence.forEach((ev, i) => {
    chunks.push(
      chunk(
        `source-evidence:${work.external_key}/${i + 1}`,
        "evidence",
        typeof ev === "string" ? ev : JSON.stringify(ev),
        [workEntity(work)],
        optional(56, work.revision),
      ),
    );
  });

  for (const d of facts.dependents) {
    chunks.push(
      chunk(
        `dependent:${d.external_key}`,
        "related",
        `${d.title} (depends on this item)\n${stateLines(d)}`,
        [workEntity(d)],
        optional(45, d.revision),
      ),
    );
  }
  const covered = new Set(
    [...facts.dependents, ...closure.unresolved, ...closure.resolved, ...closure.optional].map(
      (w) => w.external_key,
    ),
  );
  for (const s of facts.siblings.filter((w) => !covered.has(w.external_key))) {
    chunks.push(
      chunk(
        `sibling:${s.external_key}`,
        "related",
        `${s.title} (same milestone ${work.milestone})\n${stateLines(s)}`,
        [workEntity(s)],
        optional(80, s.revision),
      ),
    );
  }

  if (facts.milestone_done.length > 0) {
    chunks.push(
      chunk(
        `milestone-progress:${work.milestone}`,
        "related",
        `Completed in ${work.milestone} (${facts.milestone_done.length}): ${facts.milestone_done.map((d) => `${d.key} ${d.title}`).join("; ")}`,
        [],
        optional(82, work.revision),
      ),
    );
  }

  chunks.push(
    chunk(
      "completeness",
      "metadata",
      [
        completeness.status,
        ...completeness.issues.map((i) => `${i.code} [${i.reference}]: ${i.reason}`),
      ].join("\n"),
      [],
      required,
    ),
  );
  return chunks;
}
