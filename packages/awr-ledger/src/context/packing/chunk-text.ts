import type { EntityView } from "../../read/entity-view.js";
import type { SelectedEntity } from "../context-records.js";
import type { RuleFact } from "../select-rules.js";
import type { WorkFact } from "../work-facts.js";

// How packet chunks state their facts: shared by the chunk builders.

export const q = (value: string) => JSON.stringify(value);
export const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();
export const workEntity = (w: WorkFact): SelectedEntity => ({
  kind: "work_item",
  id: w.id,
  revision: w.revision,
});
export const entityOf = (kind: string, e: EntityView, revision: number): SelectedEntity => ({
  kind,
  id: e.id,
  revision,
});
export const ruleEntity = (r: RuleFact): SelectedEntity => ({
  kind: "rule",
  id: r.id,
  revision: r.revision,
});
export const required = { required: true } as const;
export const optional = (priority: number, recency: number) => ({ priority, recency });

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
