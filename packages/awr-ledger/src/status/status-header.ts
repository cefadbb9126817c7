import type { EntityView } from "../read/entity-view.js";
import { stringOf } from "../read/entity-view.js";
import { type BriefRevisions, shortText } from "../read/work-brief.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import type { StatusScope } from "./status-scope.js";

/** One listed entry of a status answer, as loose JSON. */
export type Item = Record<string, unknown>;

const short = (text: string | null): string | null => (text === null ? null : shortText(text));

/** A work item as the action and summary views list it (texts cut at 240 characters). */
export function statusBrief(work: EntityView, revisions: BriefRevisions): Item {
  return {
    key: work.key,
    title: shortText(work.title),
    status: work.status,
    raw_status: shortText(work.raw_status ?? work.status),
    owner: stringOf(work, "owner"),
    next_action: short(stringOf(work, "next_action")),
    blocker: short(stringOf(work, "blocker")),
    source_revision: revisions.sources.get(work.source.path) ?? null,
    details: { cli: ["work", "show", work.key], mcp: "awr_work_get" },
  };
}

/** What the first fields of a scoped status answer say: which view, project, state and scope. */
export interface StatusHeaderInput<View extends "action" | "summary"> {
  view: View;
  project: { id: string; name: string };
  revision: number;
  branch: string | null;
  scope: StatusScope;
  /** How many work items the scope selects. */
  total: number;
}

/** The leading fields the action and summary views share, in the order both answer them. */
export function statusHeader<View extends "action" | "summary">(input: StatusHeaderInput<View>) {
  return {
    view: input.view,
    schema_version: 1 as const,
    project: input.project.name,
    project_id: input.project.id,
    project_revision: input.revision,
    branch_id: input.branch,
    scope: input.scope,
    scope_combination: "intersection",
    total: input.total,
  };
}

/** A count record with its keys in code-point order, so equal counts serialise alike. */
export function sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The closing fields of both views: the source issues and how many of them are warnings. */
export function sourceIssueFields(sourceIssues: SourceIssue[]) {
  return {
    source_issues: sourceIssues,
    source_warnings: sourceIssues.filter((i) => i.severity === "warning").length,
  };
}
