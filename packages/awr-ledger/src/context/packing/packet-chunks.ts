import { type ContextChunk, chunk } from "../context-records.js";
import type { ContextCompleteness, PacketMeta } from "../context-types.js";
import type { ContextFacts } from "../gather-records.js";
import { possiblyHard } from "../select-rules.js";
import {
  entityOf,
  oneLine,
  optional,
  q,
  required,
  ruleEntity,
  ruleLines,
  stateLines,
  workEntity,
} from "./chunk-text.js";
import { deltaChunks } from "./delta-chunks.js";

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
  if (facts.minimal_context) {
    chunks.push(
      chunk(
        "context-profile",
        "metadata",
        "Context profile: minimal. The project may go without separate rules and plan sources; " +
          "every hard rule its sources declare still applies. Confirm how the project is organised " +
          "before business execution.",
        [],
        required,
      ),
    );
  }
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
    const body = facts.goal_bodies.get(goal.key) ?? goal.body.trim();
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

  chunks.push(...deltaChunks(facts, completeness, meta));
  return chunks;
}
