/**
 * The result shapes of context compilation (docs/compatibility/context-answer.md): L1
 * (`awr_context_compile`, `awr context compile`) and L0 (`awr context bootstrap`). Field meanings
 * are in docs/design/context-compiler.md.
 */
import type { CheckpointView, SessionView } from "../runtime/runtime-views.js";
import type { ContextSection, SelectedEntity } from "./context-records.js";
import type { Continuity } from "./continuity.js";
import type { RuleFact } from "./select-rules.js";
import type { SourceRefView } from "./work-facts.js";

export type { SelectedEntity } from "./context-records.js";

export const TOKENIZER = "o200k_base";
export const BUDGET_POLICY = "awr.whole_chunks.v1";
export const TOKEN_COUNT_SCOPE =
  "Exact o200k_base token count of rendered_context (headings, chunk keys and the omission footer included); " +
  "the JSON envelope, tool framing and conversation are not counted.";

export interface SourceVersion {
  /** This ledger names a source by its project-relative path. */
  id: string;
  revision: number;
  fingerprint: string;
  freshness: "fresh" | "stale" | "unavailable";
  locator: string;
}

export interface ContextIdentity {
  project_id: string;
  project_key: string;
  project_revision: number;
  work_item_id: string;
  work_item_key: string;
  work_item_revision: number;
  /** The branch compiled (null = main). */
  branch_id: string | null;
  source_versions: SourceVersion[];
}

export interface ChunkSelection {
  key: string;
  section: ContextSection;
  required: boolean;
  entities: SelectedEntity[];
}

export interface OmittedChunk {
  key: string;
  section: ContextSection;
  entities: SelectedEntity[];
  reason: "insufficient_budget_for_whole_chunk" | "unchanged_since_baseline";
}

/** The packet itself; `context_hash` binds everything in it. */
export interface WorkContext {
  identity: ContextIdentity;
  rendered_context: string;
  context_hash: string;
  token_estimate: number;
  required_tokens: number;
  token_budget: number;
  tokenizer: typeof TOKENIZER;
  token_count_scope: string;
  policy: typeof BUDGET_POLICY;
  selected_chunks: ChunkSelection[];
  selected_entities: SelectedEntity[];
  omitted_chunks: OmittedChunk[];
}

export interface CompletenessIssue {
  field: string;
  code: string;
  reference: string;
  reason: string;
}

export interface EvidenceGap {
  code: "no_evidence" | "missing_evidence_bindings" | "evidence_level_unverified";
  reference: string;
  reason: string;
}

/** Whether the required facts are all known and current; `complete` is their conjunction. */
export interface ContextCompleteness {
  project_id: string;
  project_revision: number;
  work_item_key: string;
  /** The branch compiled (null = main). */
  branch_id: string | null;
  /** An explicit branch's facts (docs/design/work-branches.md R8); absent otherwise. */
  branch_context?: Record<string, unknown>;
  source_refresh_performed: boolean;
  freshness_basis: "source_refresh_at_project_revision";
  source_fresh: boolean;
  work_item_found: boolean;
  work_state_complete: boolean;
  acceptance_complete: boolean;
  rules_complete: boolean;
  dependencies_complete: boolean;
  decision_context_complete: boolean;
  goal_context_complete: boolean | null;
  unresolved_required_dependencies: string[];
  evidence_gaps: EvidenceGap[];
  source_versions: SourceVersion[];
  issues: CompletenessIssue[];
  complete: boolean;
  status: "CONTEXT COMPLETE" | "CONTEXT INCOMPLETE";
  assessment_scope: string;
}

export interface ContextOmission {
  kind: string;
  reference: string;
  count: number;
  reason: string;
}

export type SelectionBasis =
  | "explicit_work"
  | "explicit_work_detached_session"
  | "explicit_work_missing"
  | "session"
  | "session_work_retired"
  | "source_current"
  | "none";

/** L1: `awr_context_compile` / `awr context compile`. */
export interface ContextCompileResult {
  project_revision: number;
  level: "L1";
  selection_basis: SelectionBasis;
  goal_selection_basis: "explicit_goal_keys" | "project_primary_goal_sources";
  session_id: string | null;
  checkpoint_id: string | null;
  delta_after_revision: number | null;
  /** Null when no work item could be resolved: then diagnostic_text says why. */
  work_context: WorkContext | null;
  completeness: ContextCompleteness;
  omitted_refs: ContextOmission[];
  diagnostic_text: string | null;
  /** Waits, replies and predecessor state: outside the packet's budget and hash. */
  continuity: Continuity;
}

export interface BootstrapWork {
  id: string;
  external_key: string;
  title: string;
  phase: string | null;
  status: string;
  raw_status: string;
  next_action: string;
  blocker: string | null;
  revision: number;
  source_ref: SourceRefView;
}

export interface BootstrapGap {
  code: string;
  reference: string;
  reason: string;
}

export interface BootstrapContext {
  project_id: string;
  project_key: string;
  project_name: string;
  project_revision: number;
  branch_id: null;
  work: BootstrapWork | null;
  selection_basis: SelectionBasis;
  session: SessionView | null;
  checkpoint: CheckpointView | null;
  checkpoint_origin: "session" | "handoff" | "previous_closed_session" | "none";
  /** Executions are not part of this ledger: always empty. */
  executions: never[];
  critical_rules: RuleFact[];
  source_revisions: SourceVersion[];
  gaps: BootstrapGap[];
  complete: boolean;
  /** L0 never certifies execution; compile L1 first. Always false. */
  execution_context_complete: false;
}

/** L0: `awr context bootstrap` (awr_context_bootstrap). */
export interface ContextBootstrapResult {
  project_revision: number;
  level: "L0";
  context: BootstrapContext;
  rendered_context: string;
  context_hash: string;
  token_estimate: number;
  token_budget: number;
  tokenizer: typeof TOKENIZER;
  token_scope: string;
  /** As in L1: outside the packet's budget and hash. */
  continuity: Continuity;
}

/** What an L1 packet says about how it was asked for and against which revision. */
export interface PacketMeta {
  intent: string;
  selection_basis: string;
  session_id: string | null;
  after_revision: number;
  baseline_origin: string;
  project_revision: number;
}
