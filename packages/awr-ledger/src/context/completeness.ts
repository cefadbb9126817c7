import { EVIDENCE_LEVELS } from "../sources/adapters/yaml-work-item.js";
import { meetsEvidenceLevel } from "../work/evidence-levels.js";
import type {
  CompletenessIssue,
  ContextCompleteness,
  EvidenceGap,
  SourceVersion,
} from "./context-types.js";
import type { ContextFacts } from "./gather-records.js";
import { possiblyHard } from "./select-rules.js";

/** Statuses that do not establish a goal's intent (drafts, placeholders). */
const UNSETTLED_GOALS = ["", "unknown", "draft", "candidate", "pending", "needs_confirmation"];
/** Evidence levels that claim a completed verification. */
const VERIFIED_LEVELS: readonly string[] = EVIDENCE_LEVELS.filter((level) =>
  meetsEvidenceLevel(level, "locally_verified"),
);

export const ASSESSMENT_SCOPE =
  "Whether the required facts of this work item are known and current (sources, state, acceptance, rules, " +
  "dependencies, decisions, goals). Known unresolved dependencies and evidence gaps are reported, not hidden; " +
  "this does not certify the work done, verified or releasable.";

export interface CompletenessBase {
  project_id: string;
  project_revision: number;
  work_item_key: string;
  sources: SourceVersion[];
  /** The branch compiled (null = main). */
  branch_id: string | null;
}

function verdict(
  base: CompletenessBase,
  parts: Omit<
    ContextCompleteness,
    | "project_id"
    | "project_revision"
    | "work_item_key"
    | "branch_id"
    | "source_refresh_performed"
    | "freshness_basis"
    | "source_fresh"
    | "source_versions"
    | "complete"
    | "status"
    | "assessment_scope"
  >,
): ContextCompleteness {
  const issues = [...parts.issues].sort(
    (a, b) =>
      a.field.localeCompare(b.field) ||
      a.code.localeCompare(b.code) ||
      a.reference.localeCompare(b.reference),
  );
  const source_fresh = base.sources.every((s) => s.freshness === "fresh");
  const complete =
    source_fresh &&
    parts.work_item_found &&
    parts.work_state_complete &&
    parts.acceptance_complete &&
    parts.rules_complete &&
    parts.dependencies_complete &&
    parts.decision_context_complete &&
    parts.goal_context_complete !== false &&
    issues.length === 0;
  return {
    project_id: base.project_id,
    project_revision: base.project_revision,
    work_item_key: base.work_item_key,
    branch_id: base.branch_id,
    // Every read verifies the sources first (reindexing them for the CLI, refusing with
    // SourceStale over MCP), so both transports compile from sources current at this revision
    // and state it alike: the verdict and the hash binding it do not depend on the transport.
    source_refresh_performed: true,
    freshness_basis: "source_refresh_at_project_revision",
    source_fresh,
    ...parts,
    issues,
    source_versions: base.sources,
    complete,
    status: complete ? "CONTEXT COMPLETE" : "CONTEXT INCOMPLETE",
    assessment_scope: ASSESSMENT_SCOPE,
  };
}

/** The verdict when no work item was resolved. */
export function missingWorkCompleteness(
  base: CompletenessBase,
  reason: string,
): ContextCompleteness {
  return verdict(base, {
    work_item_found: false,
    work_state_complete: false,
    acceptance_complete: false,
    rules_complete: false,
    dependencies_complete: false,
    decision_context_complete: false,
    goal_context_complete: false,
    unresolved_required_dependencies: [],
    evidence_gaps: [
      { code: "no_evidence", reference: base.work_item_key, reason: "no work item is selected" },
    ],
    issues: [
      {
        field: "work_item_found",
        code: "work_item_not_found",
        reference: base.work_item_key,
        reason,
      },
    ],
  });
}

/** Which required facts are known and current, and what is missing (docs/design/context-compiler.md). */
export function assessCompleteness(
  base: CompletenessBase,
  facts: ContextFacts,
): ContextCompleteness {
  const issues: CompletenessIssue[] = [];
  const issue = (field: string, code: string, reference: string, reason: string) =>
    issues.push({ field, code, reference, reason });
  const { work, closure } = facts;
  const key = work.external_key;

  const acceptance_complete =
    work.acceptance.length > 0 && work.acceptance.every((a) => a.text.trim() !== "");
  if (!acceptance_complete) {
    issue(
      "acceptance_complete",
      "acceptance_missing_or_stale",
      key,
      "The work item needs non-empty acceptance criteria, none blank.",
    );
  }
  const work_state_complete =
    work.status !== "unknown" &&
    work.next_action !== "" &&
    (work.status !== "blocked" || work.blocker !== null);
  if (!work_state_complete) {
    const missing = [
      work.status === "unknown" ? `status "${work.raw_status}" is not a known status` : null,
      work.next_action === "" ? "no next_action is declared" : null,
      work.status === "blocked" && work.blocker === null ? "it is blocked without a blocker" : null,
    ].filter((m) => m !== null);
    issue(
      "work_state_complete",
      "work_state_incomplete",
      key,
      `Status and next action must be known; ${missing.join("; ")}.`,
    );
  }

  const unresolvedHard = facts.rules.unknown.filter(possiblyHard);
  for (const match of unresolvedHard) {
    issue(
      "rules_complete",
      "hard_rule_unresolved",
      match.rule.external_key,
      match.reasons.join("; "),
    );
  }
  // A minimal context (every source indexed under context_profile = "minimal") needs no rules
  // source; the rules its sources do declare still apply, and the packet states the profile.
  const rulesSourced = facts.rule_sources > 0 || facts.minimal_context;
  if (!rulesSourced) {
    issue(
      "rules_complete",
      "rules_source_missing",
      base.project_id,
      "No rules source is configured, so the applicable hard rules are unknown.",
    );
  }
  const rules_complete = unresolvedHard.length === 0 && rulesSourced;

  for (const missing of closure.missing) {
    issue(
      "dependencies_complete",
      "required_dependency_missing",
      missing,
      "The required dependency is defined by no source.",
    );
  }
  for (const member of closure.cycles) {
    issue(
      "dependencies_complete",
      "dependency_cycle",
      member,
      "The required dependency is part of a cycle.",
    );
  }
  for (const dep of closure.unresolved) {
    if (
      dep.status === "unknown" ||
      dep.next_action === "" ||
      (dep.status === "blocked" && dep.blocker === null)
    ) {
      issue(
        "dependencies_complete",
        "required_dependency_state_incomplete",
        dep.external_key,
        "An unresolved required dependency needs a known status, a next action and, when blocked, a blocker.",
      );
    }
  }
  const dependencies_complete = !issues.some((i) => i.field === "dependencies_complete");

  for (const d of facts.decisions.filter((d) => d.status === "unknown")) {
    issue(
      "decision_context_complete",
      "decision_unresolved",
      d.key,
      `decision status "${d.raw_status ?? ""}" is not one AWR knows`,
    );
  }
  const decision_context_complete = !issues.some((i) => i.field === "decision_context_complete");

  if (facts.goals.length === 0) {
    issue(
      "goal_context_complete",
      "goal_context_missing",
      key,
      "No current goal was found: name goals (goals / --goal), or declare active goals in a primary goal source or in the primary ledger's goals:.",
    );
  }
  for (const requested of facts.requested_goals.filter(
    (g) => !facts.goals.some((s) => s.key === g),
  )) {
    issue("goal_context_complete", "goal_not_found", requested, "No source defines this goal.");
  }
  for (const goal of facts.goals) {
    if (UNSETTLED_GOALS.includes(goal.status.trim().toLowerCase()) || goal.title.trim() === "") {
      issue(
        "goal_context_complete",
        "goal_state_incomplete",
        goal.key,
        `Goal needs a title and a settled status (has "${goal.status}").`,
      );
    }
  }
  const goal_context_complete = !issues.some((i) => i.field === "goal_context_complete");

  return verdict(base, {
    work_item_found: true,
    work_state_complete,
    acceptance_complete,
    rules_complete,
    dependencies_complete,
    decision_context_complete,
    goal_context_complete,
    unresolved_required_dependencies: closure.unresolved.map((d) => d.external_key).sort(),
    evidence_gaps: evidenceGaps(facts),
    issues,
  });
}

function evidenceGaps(facts: ContextFacts): EvidenceGap[] {
  const gaps: EvidenceGap[] = [];
  if (facts.evidence.length === 0 && facts.source_evidence.length === 0) {
    gaps.push({
      code: "no_evidence",
      reference: facts.work.external_key,
      reason: "No evidence is associated with this work item.",
    });
  }
  for (const ev of facts.evidence) {
    const missing = [
      ev.locator === null ? "report" : null,
      ev.sha256 === null ? "sha256" : null,
      ev.command === null ? "command" : null,
      ev.verified_at === null ? "verified_at" : null,
      (JSON.parse(ev.scope) as unknown[]).length === 0 ? "scope" : null,
    ].filter((m) => m !== null);
    if (missing.length > 0) {
      gaps.push({
        code: "missing_evidence_bindings",
        reference: ev.external_key,
        reason: missing.join(", "),
      });
    }
    if (!VERIFIED_LEVELS.includes(ev.level)) {
      gaps.push({
        code: "evidence_level_unverified",
        reference: ev.external_key,
        reason: `level ${ev.level} does not claim a completed verification`,
      });
    }
  }
  return gaps;
}
