/**
 * The event types the ledger itself writes (AWR.md section 3). Every one of them is reserved:
 * `eventAppend` refuses them, as it refuses anything under a reserved prefix, so that a client
 * can never forge a domain receipt that operation recovery would trust.
 */
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
  waitCreated: "mcp.wait_created",
  waitReplied: "mcp.wait_replied",
  operationStarted: "mcp.operation_started",
  operationFinished: "mcp.operation_finished",
  operationRecovered: "mcp.operation_recovered",
} as const;

export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[keyof typeof DOMAIN_EVENT_TYPES];

/** Prefixes owned by the ledger; a free-form event type must not start with any of them. */
export const RESERVED_EVENT_PREFIXES = [
  "mcp.",
  "session.",
  "work.",
  "claim.",
  "checkpoint.",
  "evidence.",
] as const;

const domainTypes: ReadonlySet<string> = new Set(Object.values(DOMAIN_EVENT_TYPES));

/** Free-form event types: a dotted lowercase name such as `note.decision` or `build.failed`. */
export const FREE_EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/;

/** True when `type` is written only by the ledger (compared case-insensitively). */
export function isReservedEventType(type: string): boolean {
  const lower = type.toLowerCase();
  return domainTypes.has(lower) || RESERVED_EVENT_PREFIXES.some((p) => lower.startsWith(p));
}
