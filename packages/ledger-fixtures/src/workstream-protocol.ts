/**
 * The read actions of workstream protocol 1, in the order its capabilities answer and the
 * awr_workstream tool's schema list them: what the ledger's and the server's workstream suites
 * expect, written once.
 */
export const WORKSTREAM_READ_ACTIONS = [
  "capabilities",
  "list",
  "context",
  "catalog",
  "search",
  "object",
  "events",
  "recovery",
] as const;
