// Public API of the runtime and the request journal (part 2), re-exported by src/index.ts.

export {
  DOMAIN_EVENT_TYPES,
  type DomainEventType,
  isReservedEventType,
  RESERVED_EVENT_PREFIXES,
} from "../core/event-types.js";
export type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WorkFieldChanges,
  WorkWriteBack,
  WriteFields,
} from "../core/runtime-context.js";
export {
  type CheckpointTable,
  CLAIM_STATUSES,
  type ClaimStatus,
  type ClaimTable,
  type OperationTable,
  SESSION_END_STATUSES,
  SESSION_STATUSES,
  type SessionEndStatus,
  type SessionStatus,
  type SessionTable,
  WAIT_STATUSES,
  type WaitStatus,
  type WaitTable,
  WRITE_OUTCOMES,
  type WriteOutcome,
} from "../core/runtime-tables.js";
export {
  executeTool,
  isLedgerTool,
  type LedgerMethodName,
  type LedgerToolName,
  TOOL_METHODS,
  type ToolTarget,
  WRITE_TOOLS,
} from "../journal/execute-tool.js";
export { FAULT_ENV, FAULT_POINTS, type FaultPoint } from "../journal/fault-injection.js";
export { canonicalJson, requestFingerprint } from "../journal/fingerprint.js";
export type { RecordedError } from "../journal/journal-store.js";
export type {
  CommitUnit,
  DomainEvent,
  OperationScope,
  TerminalEventRef,
} from "../journal/operation-scope.js";
export { TERMINAL_PAYLOAD_KEY } from "../journal/operation-scope.js";
export type { EventView, OperationSummary } from "../journal/operation-views.js";
export {
  generatedRequestId,
  type JournaledWrite,
  runJournaledWrite,
  type WriteReceipt,
} from "../journal/run-write.js";
export type { EventAppendInput, EventAppendResult } from "./event-append.js";
export { type EvidenceLevel, evidenceRank, meetsEvidenceLevel } from "./evidence-levels.js";
export type { EvidenceRecordInput, EvidenceRecordResult, EvidenceView } from "./evidence-record.js";
export { createLedgerRuntime, type LedgerRuntime } from "./ledger-runtime.js";
export type {
  OperationGetInput,
  OperationGetResult,
  OperationListInput,
  OperationListResult,
} from "./operation-get.js";
export type {
  OperationRecoverInput,
  OperationRecoverResult,
} from "./operation-recover.js";
export type { CheckpointView, ClaimView, SessionView, WaitView } from "./runtime-views.js";
export type { SessionCheckpointInput, SessionCheckpointResult } from "./session-checkpoint.js";
export type { SessionClaimInput, SessionClaimResult } from "./session-claim.js";
export type { SessionEndInput, SessionEndResult } from "./session-end.js";
export type {
  SessionGetInput,
  SessionGetResult,
  SessionListInput,
  SessionListResult,
} from "./session-read.js";
export type { SessionReplyInput, SessionReplyResult } from "./session-reply.js";
export type { SessionResumeInput, SessionResumeResult } from "./session-resume.js";
export type { SessionStartInput, SessionStartResult } from "./session-start.js";
export type { SessionWaitInput, SessionWaitResult } from "./session-wait.js";
export {
  OPEN_WORK_STATUSES,
  plannedFieldChanges,
  transitionRefusal,
  WORK_ACTION_RULES,
  WORK_ACTIONS,
  type WorkAction,
  type WorkActionRule,
} from "./work-actions.js";
export type { CompletionEntry } from "./work-completion.js";
export type { WorkTransitionInput, WorkTransitionResult } from "./work-transition.js";
