/** The event types the ledger itself writes; every one is reserved. */
export const DOMAIN_EVENT_TYPES = {
  sessionStarted: "session.started",
  sessionResumed: "session.resumed",
  sessionEnded: "session.ended",
  checkpointCreated: "checkpoint.created",
  workClaimed: "work.claimed",
  workProgressed: "work.progressed",
  workBlocked: "work.blocked",
  workUnblocked: "work.unblocked",
  workCancelled: "work.cancelled",
  workReopened: "work.reopened",
  workCompleted: "work.completed",
  claimReleased: "claim.released",
  claimExpired: "claim.expired",
  evidenceRecorded: "evidence.recorded",
  /** The sources were reindexed (terminal event of awr_source_reindex; the refresh path too). */
  sourceReindexed: "source.reindexed",
  /**
   * One source whose entities a reindex changed (written before its source.reindexed, in the
   * same revision): payload `{source, changes: [{kind, id, key, external_key, change}]}`, what
   * checkpoints and `context delta` report as observed source changes.
   */
  sourceProjected: "source.projected",
  waitCreated: "mcp.wait_created",
  waitReplied: "mcp.wait_replied",
  operationStarted: "mcp.operation_started",
  operationFinished: "mcp.operation_finished",
  operationRecovered: "mcp.operation_recovered",
  /** Work branches (docs/design/work-branches.md): each write's terminal receipt. */
  branchCreated: "branch.created",
  branchSwitched: "branch.switched",
  branchClosed: "branch.closed",
  branchMerged: "branch.merged",
  branchAbandoned: "branch.abandoned",
  branchLoopCarried: "branch.loop_carried",
  workHandoff: "work.handoff",
  sessionHandoffReceived: "session.handoff_received",
  /** awr_work_manage's receipt: the host's observations and the assessment they produced. */
  managementAssessed: "management.assessed",
  /** awr_compaction_observe's receipt: payload `{observation, policy}` as the host reported them. */
  compactionObserved: "client.compaction_observed",
  /** awr_compaction_defer's receipt: payload `{observation_event_id}`, the observation deferred. */
  compactionDeferred: "client.compaction_deferred",
} as const;

export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[keyof typeof DOMAIN_EVENT_TYPES];

/**
 * The request journal's own receipts (docs/design/journal-three-steps.md): they record the steps
 * of a journaled write, not work. Event reads and history show them; search leaves them out.
 */
export const JOURNAL_RECEIPT_TYPES: readonly DomainEventType[] = [
  DOMAIN_EVENT_TYPES.operationStarted,
  DOMAIN_EVENT_TYPES.operationFinished,
  DOMAIN_EVENT_TYPES.operationRecovered,
];

/**
 * Event types only domain operations may write, so a free-form event can never pass for one (a
 * recovery, a context packet or a person reading the history trusts them): everything under the
 * domain prefixes, the lifecycle types, and the ledger's own journal and wait types
 * (docs/compatibility/storage.md).
 * Other names under `work.` or `session.` are free (`work.observed` is an ordinary event).
 */
export const RESERVED_EVENT_PREFIXES = [
  "source.",
  "checkpoint.",
  "proposal.",
  "branch.",
  "client.",
  "execution.",
] as const;

export const RESERVED_EVENT_TYPES: ReadonlySet<string> = new Set<string>([
  ...Object.values(DOMAIN_EVENT_TYPES),
  "session.resumed_from",
  "session.handoff_received",
  "session.interrupted",
  "work.handoff",
  "artifact.recorded",
]);

/** True when `type` is written only by the ledger's domain operations (case-insensitive). */
export function isReservedEventType(type: string): boolean {
  const lower = type.toLowerCase();
  return (
    RESERVED_EVENT_TYPES.has(lower) || RESERVED_EVENT_PREFIXES.some((p) => lower.startsWith(p))
  );
}
