import {
  type OperationGetInput,
  type OperationGetResult,
  type OperationListInput,
  type OperationListResult,
  operationGet,
  operationList,
} from "../journal/operation-get.js";
import {
  type OperationRecoverInput,
  type OperationRecoverResult,
  operationRecover,
} from "../journal/operation-recover.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { type EventAppendInput, type EventAppendResult, eventAppend } from "./event-append.js";
import {
  type EvidenceRecordInput,
  type EvidenceRecordResult,
  evidenceRecord,
} from "./evidence-record.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "./runtime-context.js";
import {
  type SessionCheckpointInput,
  type SessionCheckpointResult,
  sessionCheckpoint,
} from "./session-checkpoint.js";
import { type SessionClaimInput, type SessionClaimResult, sessionClaim } from "./session-claim.js";
import { type SessionEndInput, type SessionEndResult, sessionEnd } from "./session-end.js";
import {
  type SessionGetInput,
  type SessionGetResult,
  type SessionListInput,
  type SessionListResult,
  sessionGet,
  sessionList,
} from "./session-read.js";
import { type SessionReplyInput, type SessionReplyResult, sessionReply } from "./session-reply.js";
import {
  type SessionResumeInput,
  type SessionResumeResult,
  sessionResume,
} from "./session-resume.js";
import { type SessionStartInput, type SessionStartResult, sessionStart } from "./session-start.js";
import { type SessionWaitInput, type SessionWaitResult, sessionWait } from "./session-wait.js";
import {
  type WorkTransitionInput,
  type WorkTransitionResult,
  workTransition,
} from "./work-transition.js";

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

export function createLedgerRuntime(ctx: RuntimeContext): LedgerRuntime {
  return {
    workTransition: (input, caller, options) => workTransition(ctx, input, caller, options),
    eventAppend: (input, caller, options) => eventAppend(ctx, input, caller, options),
    evidenceRecord: (input, caller, options) => evidenceRecord(ctx, input, caller, options),
    sessionStart: (input, caller, options) => sessionStart(ctx, input, caller, options),
    sessionGet: (input, caller, options) => sessionGet(ctx, input, caller, options),
    sessionList: (input, caller, options) => sessionList(ctx, input, caller, options),
    sessionCheckpoint: (input, caller, options) => sessionCheckpoint(ctx, input, caller, options),
    sessionClaim: (input, caller, options) => sessionClaim(ctx, input, caller, options),
    sessionEnd: (input, caller, options) => sessionEnd(ctx, input, caller, options),
    sessionResume: (input, caller, options) => sessionResume(ctx, input, caller, options),
    sessionWait: (input, caller, options) => sessionWait(ctx, input, caller, options),
    sessionReply: (input, caller, options) => sessionReply(ctx, input, caller, options),
    operationGet: (input, caller, options) => operationGet(ctx, input, caller, options),
    operationRecover: (input, caller, options) => operationRecover(ctx, input, caller, options),
    operationList: (input, caller, options) => operationList(ctx, input, caller, options),
  };
}
