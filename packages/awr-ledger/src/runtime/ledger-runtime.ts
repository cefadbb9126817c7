import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { WriteReceipt } from "../journal/run-write.js";
import type { EventAppendInput, EventAppendResult } from "./event-append.js";
import type { EvidenceRecordInput, EvidenceRecordResult } from "./evidence-record.js";
import type {
  OperationGetInput,
  OperationGetResult,
  OperationListInput,
  OperationListResult,
} from "./operation-get.js";
import type { OperationRecoverInput, OperationRecoverResult } from "./operation-recover.js";
import type { SessionCheckpointInput, SessionCheckpointResult } from "./session-checkpoint.js";
import type { SessionClaimInput, SessionClaimResult } from "./session-claim.js";
import type { SessionEndInput, SessionEndResult } from "./session-end.js";
import type {
  SessionGetInput,
  SessionGetResult,
  SessionListInput,
  SessionListResult,
} from "./session-read.js";
import type { SessionReplyInput, SessionReplyResult } from "./session-reply.js";
import type { SessionResumeInput, SessionResumeResult } from "./session-resume.js";
import type { SessionStartInput, SessionStartResult } from "./session-start.js";
import type { SessionWaitInput, SessionWaitResult } from "./session-wait.js";
import type { WorkTransitionInput, WorkTransitionResult } from "./work-transition.js";

type Method<I, O> = (input: I, caller: RuntimeCaller, options?: CallOptions) => Promise<O>;
type Write<I, O> = Method<I, O & WriteReceipt>;

/** The runtime and journal operations (part 2 of the ledger), bound to one project's context. */
export interface LedgerRuntime {
  workTransition: Write<WorkTransitionInput, WorkTransitionResult>;
  eventAppend: Write<EventAppendInput, EventAppendResult>;
  evidenceRecord: Write<EvidenceRecordInput, EvidenceRecordResult>;
  sessionStart: Write<SessionStartInput, SessionStartResult>;
  sessionGet: Method<SessionGetInput, SessionGetResult>;
  sessionList: Method<SessionListInput, SessionListResult>;
  sessionCheckpoint: Write<SessionCheckpointInput, SessionCheckpointResult>;
  sessionClaim: Write<SessionClaimInput, SessionClaimResult>;
  sessionEnd: Write<SessionEndInput, SessionEndResult>;
  sessionResume: Write<SessionResumeInput, SessionResumeResult>;
  sessionWait: Write<SessionWaitInput, SessionWaitResult>;
  sessionReply: Write<SessionReplyInput, SessionReplyResult>;
  operationGet: Method<OperationGetInput, OperationGetResult>;
  operationRecover: Method<OperationRecoverInput, OperationRecoverResult>;
  operationList: Method<OperationListInput, OperationListResult>;
}

let operations: Promise<typeof import("./runtime-operations.js")> | undefined;

/**
 * The operation implementations, imported once, on the first runtime call, all together: every
 * call awaits the same promise, so calls keep the order in which they were made.
 */
function loadOperations(): Promise<typeof import("./runtime-operations.js")> {
  operations ??= import("./runtime-operations.js");
  return operations;
}

export function createLedgerRuntime(ctx: RuntimeContext): LedgerRuntime {
  return {
    workTransition: async (input, caller, options) =>
      (await loadOperations()).workTransition(ctx, input, caller, options),
    eventAppend: async (input, caller, options) =>
      (await loadOperations()).eventAppend(ctx, input, caller, options),
    evidenceRecord: async (input, caller, options) =>
      (await loadOperations()).evidenceRecord(ctx, input, caller, options),
    sessionStart: async (input, caller, options) =>
      (await loadOperations()).sessionStart(ctx, input, caller, options),
    sessionGet: async (input, caller, options) =>
      (await loadOperations()).sessionGet(ctx, input, caller, options),
    sessionList: async (input, caller, options) =>
      (await loadOperations()).sessionList(ctx, input, caller, options),
    sessionCheckpoint: async (input, caller, options) =>
      (await loadOperations()).sessionCheckpoint(ctx, input, caller, options),
    sessionClaim: async (input, caller, options) =>
      (await loadOperations()).sessionClaim(ctx, input, caller, options),
    sessionEnd: async (input, caller, options) =>
      (await loadOperations()).sessionEnd(ctx, input, caller, options),
    sessionResume: async (input, caller, options) =>
      (await loadOperations()).sessionResume(ctx, input, caller, options),
    sessionWait: async (input, caller, options) =>
      (await loadOperations()).sessionWait(ctx, input, caller, options),
    sessionReply: async (input, caller, options) =>
      (await loadOperations()).sessionReply(ctx, input, caller, options),
    operationGet: async (input, caller, options) =>
      (await loadOperations()).operationGet(ctx, input, caller, options),
    operationRecover: async (input, caller, options) =>
      (await loadOperations()).operationRecover(ctx, input, caller, options),
    operationList: async (input, caller, options) =>
      (await loadOperations()).operationList(ctx, input, caller, options),
  };
}
