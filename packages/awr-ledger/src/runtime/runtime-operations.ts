// The implementations behind LedgerRuntime, in one module that ledger-runtime.ts loads on the
// first runtime call: a process that only reads (`awr status`) never loads them.

export { eventAppend } from "./event-append.js";
export { evidenceRecord } from "./evidence-record.js";
export { operationGet, operationList } from "./operation-get.js";
export { operationRecover } from "./operation-recover.js";
export { sessionCheckpoint } from "./session-checkpoint.js";
export { sessionClaim } from "./session-claim.js";
export { sessionEnd } from "./session-end.js";
export { sessionGet, sessionList } from "./session-read.js";
export { sessionReply } from "./session-reply.js";
export { sessionResume } from "./session-resume.js";
export { sessionStart } from "./session-start.js";
export { sessionWait } from "./session-wait.js";
export { workTransition } from "./work-transition.js";
