import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";

/**
 * What a host observed about a unit of work, as awr_work_manage records it. Every fact but the
 * time and the note may be unknown (null or absent), and an unknown fact stays unknown: the
 * decision lists it, it never guesses it.
 */
export interface ManagementObservation {
  /** Milliseconds since the epoch; never in the future. */
  observed_at: number;
  /** Why the host says so, in its own words. */
  note: string;
  single_outcome?: boolean | null | undefined;
  bounded_scope?: boolean | null | undefined;
  single_executor?: boolean | null | undefined;
  no_deferred_wait?: boolean | null | undefined;
  independently_schedulable_units?: number | null | undefined;
  plan_valid?: boolean | null | undefined;
  outcome_known?: boolean | null | undefined;
  active_elapsed_ms?: number | null | undefined;
  completed_rework_cycles?: number | null | undefined;
}

export interface ManagementReason {
  code: string;
  /** host_assertion, source_projection, runtime_history or runtime_recorded_state. */
  basis: string;
  /** The fact, key, fingerprint or event the reason rests on. */
  reference: string;
}

export type ManagementMode = "undetermined" | "lightweight" | "continuous";

export interface ManagementDecision {
  version: 1;
  mode: ManagementMode;
  reasons: ManagementReason[];
  unknown_observations: string[];
  reevaluation_signals: string[];
  required_actions: string[];
  optional_maintenance: string[];
  completion_policy: "unchanged_source_policy";
  execution_admission: "not_granted_by_management_classification";
}

/** The observation's fields in their stored order, each present (null when unknown). */
export function normalizeObservation(o: ManagementObservation): Required<ManagementObservation> {
  return {
    observed_at: o.observed_at,
    note: o.note,
    single_outcome: o.single_outcome ?? null,
    bounded_scope: o.bounded_scope ?? null,
    single_executor: o.single_executor ?? null,
    no_deferred_wait: o.no_deferred_wait ?? null,
    independently_schedulable_units: o.independently_schedulable_units ?? null,
    plan_valid: o.plan_valid ?? null,
    outcome_known: o.outcome_known ?? null,
    active_elapsed_ms: o.active_elapsed_ms ?? null,
    completed_rework_cycles: o.completed_rework_cycles ?? null,
  };
}

/** InvalidInput unless the observation is of the past or now, explained, and counts units. */
export function checkObservation(o: ManagementObservation, nowMs: number): void {
  const noteBytes = Buffer.byteLength(o.note, "utf8");
  if (
    o.observed_at < 0 ||
    o.observed_at > nowMs ||
    o.note.trim() === "" ||
    noteBytes > LIMITS.managementNoteBytes ||
    o.independently_schedulable_units === 0
  ) {
    throw new LedgerError(
      "InvalidInput",
      `an observation needs observed_at at or before now (${nowMs} ms), a non-blank note of at most ${LIMITS.managementNoteBytes} bytes, and independently_schedulable_units of at least 1 when it is known`,
      { field: "observation" },
    );
  }
}

/** Each yes/no fact, and the reason a "no" gives for continuous management. */
const FACTS = [
  ["single_outcome", "multiple_outcomes"],
  ["bounded_scope", "scope_requires_planning"],
  ["single_executor", "handoff_or_collaboration"],
  ["no_deferred_wait", "deferred_wait"],
  ["plan_valid", "plan_invalidated"],
  ["outcome_known", "query_outcome_before_retry"],
] as const;

const BASE_ACTIONS = [
  "preserve_identity_intent_scope_and_current_state",
  "consume_required_context_and_hard_rules",
  "retain_completion_basis_and_actual_outcome",
  "check_source_versions_permissions_claims_and_request_identity",
];
const CONTINUOUS_ACTIONS = [
  "maintain_dependencies_and_ownership",
  "checkpoint_at_wait_handoff_interruption_and_phase_change",
  "maintain_next_action_wait_conditions_and_open_loops",
  "query_unknown_results_before_any_retry",
];
const CONTINUOUS_OPTIONAL = ["per_tool_checkpoints", "duplicate_goal_rule_or_report_bodies"];
const LIGHT_OPTIONAL = [
  "separate_goal_document_when_explicit_inheritance_suffices",
  "per_tool_checkpoints",
  "task_graph_without_dependencies",
  "duplicate_summaries_or_evidence_bodies",
];

/**
 * How intensely the work needs managing, from the host's observation (if any), the reasons the
 * sources and the runtime already give, and whether an earlier record was continuous. Any
 * reason makes it continuous, and continuous is never downgraded; with no reason it is
 * lightweight only once every fact is known, else undetermined. The completion policy and
 * execution admission are never changed by it.
 */
export function decideManagement(
  observation: ManagementObservation | null,
  given: readonly ManagementReason[],
  priorContinuous: boolean,
): ManagementDecision {
  const reasons = [...given];
  const unknown: string[] = [];
  const reevaluate: string[] = [];
  const o: Partial<ManagementObservation> = observation ?? {};
  for (const [name, trigger] of FACTS) {
    const value = o[name];
    if (value === undefined || value === null) unknown.push(name);
    else if (value === false) {
      reasons.push({ code: trigger, basis: "host_assertion", reference: name });
    }
  }
  const units = o.independently_schedulable_units;
  if (units === undefined || units === null) unknown.push("independently_schedulable_units");
  else if (units >= 2) {
    reasons.push({
      code: "independent_work_units",
      basis: "host_assertion",
      reference: "independently_schedulable_units",
    });
  }
  if ((o.active_elapsed_ms ?? -1) >= LIMITS.managementReevaluateElapsedMs) {
    reevaluate.push("active_elapsed_at_least_30_minutes");
  }
  if ((o.completed_rework_cycles ?? -1) >= LIMITS.managementReevaluateReworkCycles) {
    reevaluate.push("at_least_3_completed_rework_cycles");
  }
  const mode: ManagementMode =
    priorContinuous || reasons.length > 0
      ? "continuous"
      : unknown.length === 0
        ? "lightweight"
        : "undetermined";
  if (priorContinuous) {
    reasons.push({
      code: "continuous_management_retained",
      basis: "runtime_history",
      reference: "previous_management_record",
    });
  }
  const required = [...BASE_ACTIONS, ...(mode === "continuous" ? CONTINUOUS_ACTIONS : [])];
  if (mode === "undetermined") required.push("assess_unknown_management_facts");
  if (reevaluate.length > 0) {
    required.push("reevaluate_scope_plan_and_recovery_without_automatic_upgrade");
  }
  return {
    version: 1,
    mode,
    reasons,
    unknown_observations: unknown,
    reevaluation_signals: reevaluate,
    required_actions: required,
    optional_maintenance: [...(mode === "continuous" ? CONTINUOUS_OPTIONAL : LIGHT_OPTIONAL)],
    completion_policy: "unchanged_source_policy",
    execution_admission: "not_granted_by_management_classification",
  };
}
