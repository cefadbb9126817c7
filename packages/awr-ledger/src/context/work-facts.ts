import { acceptanceOf, type EntityView, stringOf, stringsOf } from "../read/entity-view.js";
import type { AcceptanceCriterion } from "../sources/adapters/yaml-ledger-v1.js";

/** Where a fact comes from: the source, its revision, and the place in it (`source_ref`). */
export interface SourceRefView {
  source_id: string;
  locator: string;
  source_revision: number;
  pointer: string | null;
  start_line: number;
  end_line: number;
}

/** The facts of one work item that context packets state. */
export interface WorkFact {
  id: string;
  external_key: string;
  title: string;
  /** The normalised status (`unknown` when the source's is not one AWR knows). */
  status: string;
  /** The status exactly as the source wrote it. */
  raw_status: string;
  /** "" when the source declares none. */
  next_action: string;
  blocker: string | null;
  summary: string;
  acceptance: AcceptanceCriterion[];
  milestone: string | null;
  goal: string | null;
  paths: string[];
  tags: string[];
  decisions: string[];
  /** The revision that last indexed this item. */
  revision: number;
  source_ref: SourceRefView;
}

const text = (value: string | null) => (value ?? "").trim();

export function sourceRefOf(entity: EntityView, revision: number): SourceRefView {
  return {
    source_id: entity.source.path,
    locator: entity.source.path,
    source_revision: revision,
    pointer: null,
    start_line: entity.source.line_start,
    end_line: entity.source.line_end,
  };
}

export function workFact(entity: EntityView, revision: number): WorkFact {
  const blocker = text(stringOf(entity, "blocker"));
  return {
    id: entity.id,
    external_key: entity.key,
    title: entity.title,
    status: entity.status,
    raw_status: entity.raw_status ?? entity.status,
    next_action: text(stringOf(entity, "next_action")),
    blocker: blocker === "" ? null : blocker,
    summary: text(entity.summary),
    acceptance: acceptanceOf(entity),
    milestone: stringOf(entity, "milestone"),
    goal: stringOf(entity, "goal"),
    paths: stringsOf(entity, "paths"),
    tags: stringsOf(entity, "tags"),
    decisions: stringsOf(entity, "decisions"),
    revision,
    source_ref: sourceRefOf(entity, revision),
  };
}
