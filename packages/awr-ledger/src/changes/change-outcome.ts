import type { ChangeKind } from "./change-identity.js";
import type { ChangePhase, ChangeRecord } from "./change-journal.js";

/** Where the outcome of a source change is read and resumed: never the MCP request journal. */
export const CHANGE_JOURNAL_FIELDS = {
  journal: "source_change",
  outcome_query: "awr_change_status",
  recovery_tool: "awr_change_recover",
} as const;

/** The fields every answer of the four tools carries: the caller's identity of the change. */
export function identityFields(requestId: string, kind: ChangeKind): Record<string, unknown> {
  return { request_id: requestId, change_kind: kind, ...CHANGE_JOURNAL_FIELDS };
}

const STATUS: Record<ChangePhase, string> = {
  prepared: "pending_recovery",
  source_written: "pending_recovery",
  completed: "completed",
  no_change: "no_change",
  stopped: "requires_review",
};

const WRITE_OUTCOME: Record<ChangePhase, string> = {
  prepared: "pending_recovery",
  source_written: "pending_recovery",
  completed: "applied",
  no_change: "no_change",
  stopped: "stopped",
};

/** The phases a journaled change has actually completed, in order. */
export function completedPhases(phase: ChangePhase): string[] {
  switch (phase) {
    case "prepared":
    case "stopped":
    case "no_change":
      return ["prepared"];
    case "source_written":
      return ["prepared", "source_written"];
    case "completed":
      return ["prepared", "source_written", "reindexed"];
  }
}

/**
 * A journaled change as its owner sees it. `replay`: the answer is the recorded outcome of an
 * earlier call (a repeated apply, status, recover of a settled change), not this call's work;
 * the caller sets the `*_write_performed` facts of this call.
 */
export function changeSummary(record: ChangeRecord, replay: boolean): Record<string, unknown> {
  const pending = STATUS[record.phase] !== "completed" && STATUS[record.phase] !== "no_change";
  return {
    ok: !pending,
    status: STATUS[record.phase],
    write_outcome: WRITE_OUTCOME[record.phase],
    phase: record.phase,
    phases: completedPhases(record.phase),
    project_id: record.identity.project_id,
    project_revision: record.project_revision,
    reviewed_revision: record.base_revision,
    request_key: record.identity.request_key,
    actor: { host: "awr-mcp", subject: record.identity.client, origin: "delegated_agent" },
    provenance_is_authentication: false,
    preview_fingerprint: record.preview_fingerprint,
    already_recorded: replay,
    historical_outcome: replay,
    source_write_performed: false,
    runtime_write_performed: false,
    source: {
      path: record.source_path,
      work: record.plan.work,
      before_fingerprint: record.before_fingerprint,
      after_fingerprint: record.after_fingerprint,
    },
    changed_fields: record.plan.changed,
    change: record.plan.change,
    ...(record.plan.details === undefined ? {} : { details: record.plan.details }),
    outcome: record.outcome,
    ...identityFields(record.identity.request_id, record.identity.kind),
  };
}
