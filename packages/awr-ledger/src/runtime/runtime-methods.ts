import type { CallOptions, RuntimeCaller } from "../core/runtime-context.js";
import { executeTool, type ToolTarget } from "../journal/execute-tool.js";
import type { EventAppendInput } from "./event-append.js";
import type { EvidenceRecordInput } from "./evidence-record.js";
import type { LedgerRuntime } from "./ledger-runtime.js";
import type { OperationGetInput, OperationListInput } from "./operation-get.js";
import type { OperationRecoverInput } from "./operation-recover.js";
import type { SessionCheckpointInput } from "./session-checkpoint.js";
import type { SessionClaimInput } from "./session-claim.js";
import type { SessionEndInput } from "./session-end.js";
import type { SessionGetInput, SessionListInput } from "./session-read.js";
import type { SessionReplyInput } from "./session-reply.js";
import type { SessionResumeInput } from "./session-resume.js";
import type { SessionStartInput } from "./session-start.js";
import type { SessionWaitInput } from "./session-wait.js";
import type { WorkTransitionInput } from "./work-transition.js";

const STDIO: RuntimeCaller = { client: "stdio" };

/**
 * The runtime and journal methods of the Ledger facade (one per tool of TOOLS.md, plus
 * `operationList` and the generic `execute`). The caller defaults to the stdio client.
 */
export abstract class RuntimeMethods {
  readonly #runtime: LedgerRuntime;

  protected constructor(runtime: LedgerRuntime) {
    this.#runtime = runtime;
  }

  workTransition(input: WorkTransitionInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.workTransition(input, caller, options);
  }
  eventAppend(input: EventAppendInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.eventAppend(input, caller, options);
  }
  evidenceRecord(input: EvidenceRecordInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.evidenceRecord(input, caller, options);
  }
  sessionStart(input: SessionStartInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionStart(input, caller, options);
  }
  sessionGet(input: SessionGetInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionGet(input, caller, options);
  }
  sessionList(input: SessionListInput = {}, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionList(input, caller, options);
  }
  sessionCheckpoint(input: SessionCheckpointInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionCheckpoint(input, caller, options);
  }
  sessionClaim(input: SessionClaimInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionClaim(input, caller, options);
  }
  sessionEnd(input: SessionEndInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionEnd(input, caller, options);
  }
  sessionResume(input: SessionResumeInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionResume(input, caller, options);
  }
  sessionWait(input: SessionWaitInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionWait(input, caller, options);
  }
  sessionReply(input: SessionReplyInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.sessionReply(input, caller, options);
  }
  operationGet(input: OperationGetInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.operationGet(input, caller, options);
  }
  operationRecover(input: OperationRecoverInput, caller = STDIO, options?: CallOptions) {
    return this.#runtime.operationRecover(input, caller, options);
  }
  /** This client's journal by outcome (no MCP tool; the CLI and operators use it). */
  operationList(input: OperationListInput = {}, caller = STDIO, options?: CallOptions) {
    return this.#runtime.operationList(input, caller, options);
  }

  /** Runs a tool of TOOLS.md by its MCP name (see executeTool). */
  execute(tool: string, input: unknown, caller = STDIO, options?: CallOptions) {
    return executeTool(this as unknown as ToolTarget, tool, input, caller, options);
  }
}
