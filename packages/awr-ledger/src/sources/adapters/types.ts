import type { EntityKind } from "../../storage/schema.js";
import type { SourceIssue } from "./source-issue.js";
import type { WorkstreamDeclaration } from "./workstream-format.js";

export type { SourceIssue } from "./source-issue.js";

export interface ParsedEntity {
  kind: EntityKind;
  key: string;
  title: string;
  status: string;
  raw_status: string | null;
  summary: string | null;
  body: string;
  attributes: Record<string, unknown>;
  line_start: number;
  line_end: number;
}

export interface ParsedDependency {
  work_key: string;
  depends_on: string;
  required: boolean;
}

export interface AdapterResult {
  entities: ParsedEntity[];
  dependencies: ParsedDependency[];
  issues: SourceIssue[];
  /**
   * What the source says about itself that the projection does not model (a ledger's
   * `current:` block): kept with the source row and shown by `status` as the source's own note.
   */
  note?: Record<string, unknown> | undefined;
  /** yaml-workstream-ledger-v1 only: the `workstreams:` declaration and each item's owner. */
  workstreams?: WorkstreamDeclaration | undefined;
}

export interface AdapterContext {
  /** The source path relative to the project root, used in issues (and as a decision's key). */
  path: string;
  /** The manifest domain (`ledger`, `goal`, `plan`, `rules`, `decisions`, or an earlier alias). */
  domain: string;
  options: Record<string, unknown>;
}

export type SourceAdapter = (text: string, context: AdapterContext) => AdapterResult;
