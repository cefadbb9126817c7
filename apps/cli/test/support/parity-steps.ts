/** The parity test's sequence: each step as CLI words and as the matching tool call. */

export interface Step {
  /** The CLI words (without --project/--json). `<dir>` is replaced by the step files' folder. */
  cli: string[];
  tool: string;
  /** Tool arguments besides expected_revision (added for writes from the previous result). */
  args: Record<string, unknown>;
  write?: boolean;
  /** Pass --expected-revision explicitly on the CLI side (else the CLI reads it itself). */
  explicitRevision?: boolean;
  /** Files the CLI step reads (name → JSON value), written to `<dir>` first. */
  files?: Record<string, unknown>;
  /** Arguments that only exist once earlier steps ran (the wait's id, a claim's id). */
  late?: (earlier: EarlierResults) => Record<string, unknown>;
  /** The same, for the CLI words. */
  lateCli?: (earlier: EarlierResults) => string[];
  /** Files that only exist once earlier steps ran (a branch's id), from the CLI side's results. */
  lateFiles?: (earlier: EarlierResults) => Record<string, unknown>;
  /**
   * A CLI-only command (no tool: `branch create`, `branch switch`): it runs through the CLI on
   * both copies, whose normalised answers must be equal, so the copies stay identical.
   */
  cliOnly?: boolean;
  /**
   * A read whose answer is an error carrying a result (an incomplete context): the CLI exits 1
   * with this error code, prints the result on stdout, and the tool answers it with isError.
   */
  error?: string;
  /**
   * Top-level fields left out of the comparison, with the reason: a context packet quotes ids in
   * its events, and two runs' ids tokenise into slightly different counts; a work graph's
   * evaluated_at is the clock reading of each call.
   */
  ignore?: string[];
}

/** Results of earlier steps by tool, newest last, as one side (CLI or tools) got them. */
export type EarlierResults = ReadonlyMap<string, readonly Record<string, unknown>[]>;

const AGENT = ["--agent", "builder", "--provider", "example-provider", "--model", "example-model"];
const agentArgs = { agent: "builder", provider: "example-provider", model: "example-model" };
const SHA = "b".repeat(40);
const HASH = "sha256:parity-context";

function last(earlier: EarlierResults, tool: string): Record<string, unknown> {
  const results = earlier.get(tool) ?? [];
  const result = results[results.length - 1];
  if (result === undefined) throw new Error(`no earlier ${tool} result`);
  return result;
}

const waitId = (earlier: EarlierResults) =>
  (last(earlier, "awr_session_wait")["wait"] as { id: string }).id;
const claimId = (earlier: EarlierResults) =>
  (last(earlier, "awr_session_claim")["claim"] as { id: string }).id;
const sessionId = (earlier: EarlierResults) =>
  (last(earlier, "awr_session_start")["session"] as { id: string }).id;

/** One management observation of W-2 by the started session, at a fixed time. */
const OBSERVED_AT = Date.now() - 1000;
const manageArgs = (session: string, earlier: EarlierResults) => ({
  work: "W-2",
  session,
  request_key: "parity-observation",
  contract_fingerprint: last(earlier, "awr_work_assess")["contract_fingerprint"],
  observation: {
    observed_at: OBSERVED_AT,
    note: "One outcome, one executor",
    single_outcome: true,
  },
});

/** One completed native compaction of conv-1's session, as the host reports it. */
const compaction = {
  conversation: "conv-1",
  observation: {
    compaction_id: "parity-compaction",
    sequence: 1,
    observed_at: OBSERVED_AT,
    trigger: "automatic",
    model: "example-model",
    source: "host.telemetry.parity",
    measurement_scope: "full_request",
    measurement_basis: "host_reported",
    after_tokens: 90_000,
    context_window_tokens: 200_000,
  },
};
const observationEventId = (earlier: EarlierResults) =>
  last(earlier, "awr_compaction_observe")["observation_event_id"] as string;

/** An evidence record as the tool takes it... */
const evidence = (key: string) => ({
  external_key: key,
  evidence_type: "test",
  level: "locally_verified",
  summary: `${key} passed`,
  locator: "https://ci.example/run/7",
  source_sha: SHA,
  scope: ["W-2"],
  command: "pnpm test migrations",
});
/** ...and as the CLI's --input file names it (the original's EvidenceDraft). */
const evidenceDraft = (key: string) => ({ ...evidence(key), work_item_key: "W-2" });

/** Every catalog tool, in an order that is valid on the demo project. */
export const STEPS: Step[] = [
  { cli: ["status"], tool: "awr_project_status", args: {} },
  {
    cli: ["status", "--view", "summary", "--goal", "goal#checkout"],
    tool: "awr_project_status",
    args: { view: "summary", goal: "goal#checkout" },
  },
  { cli: ["ready", "--limit", "5"], tool: "awr_work_ready", args: { limit: 5 } },
  { cli: ["work", "show", "W-2"], tool: "awr_work_get", args: { work: "W-2" } },
  {
    cli: ["work", "graph", "--root", "W-2", "--limit", "20"],
    tool: "awr_work_graph",
    args: { roots: ["W-2"], limit: 20 },
    ignore: ["evaluated_at"],
  },
  {
    cli: ["search", "payment provider", "--type", "work"],
    tool: "awr_search",
    args: { text: "payment provider", kind: "work" },
  },
  {
    cli: ["session", "start", "--work", "W-2", "--conversation", "conv-1", ...AGENT, "--claim"],
    tool: "awr_session_start",
    args: { work: "W-2", conversation: "conv-1", ...agentArgs, claim: true },
    write: true,
  },
  {
    cli: ["work", "assess", "W-2"],
    tool: "awr_work_assess",
    args: { work: "W-2" },
  },
  {
    cli: ["work", "manage", "--input", "<dir>/manage.json"],
    tool: "awr_work_manage",
    args: {},
    late: (earlier) => manageArgs(sessionId(earlier), earlier),
    lateFiles: (earlier) => ({ "manage.json": manageArgs(sessionId(earlier), earlier) }),
    write: true,
  },
  {
    cli: ["session", "compaction", "observe", "--input", "<dir>/compaction.json"],
    tool: "awr_compaction_observe",
    args: compaction,
    files: { "compaction.json": compaction },
    write: true,
  },
  {
    cli: ["session", "compaction", "inspect", "--conversation", "conv-1", "--include-observation"],
    tool: "awr_compaction_get",
    args: { conversation: "conv-1", include_observation: true },
  },
  {
    cli: ["session", "compaction", "defer", "--conversation", "conv-1"],
    lateCli: (earlier) => ["--observation-event-id", observationEventId(earlier)],
    tool: "awr_compaction_defer",
    args: { conversation: "conv-1" },
    late: (earlier) => ({ observation_event_id: observationEventId(earlier) }),
    write: true,
  },
  {
    cli: ["session", "show", "--conversation", "conv-1"],
    tool: "awr_session_get",
    args: { conversation: "conv-1" },
  },
  { cli: ["session", "list"], tool: "awr_session_list", args: {} },
  {
    cli: [
      "context",
      "compile",
      "--work",
      "W-2",
      "--conversation",
      "conv-1",
      "--budget",
      "3000",
      "--intent",
      "write the migration",
      "--goal",
      "goal#checkout",
      "--path",
      "migrations/001-orders.sql",
    ],
    tool: "awr_context_compile",
    args: {
      work: "W-2",
      conversation: "conv-1",
      budget: 3000,
      intent: "write the migration",
      goals: ["goal#checkout"],
      paths: ["migrations/001-orders.sql"],
    },
  },
  {
    // W-2's hard rules need a path the item does not declare precisely (prepare takes none):
    // the preparation is incomplete, with its guidance card, on both sides alike.
    cli: ["work", "prepare", "W-2", "--goal", "goal#checkout", "--response-view", "action"],
    tool: "awr_work_prepare",
    args: { work: "W-2", goals: ["goal#checkout"], response_view: "action" },
    error: "ContextIncomplete",
  },
  {
    // An explicit main: the fork baseline from revision 0 (main's whole runtime history).
    cli: [
      "branch",
      "context",
      "main",
      "--work",
      "W-2",
      "--detached",
      "--budget",
      "3000",
      "--goal",
      "goal#checkout",
      "--path",
      "migrations/001-orders.sql",
    ],
    tool: "awr_context_compile",
    args: {
      branch: "main",
      work: "W-2",
      detached: true,
      budget: 3000,
      goals: ["goal#checkout"],
      paths: ["migrations/001-orders.sql"],
    },
  },
  {
    cli: [
      "session",
      "checkpoint",
      "--conversation",
      "conv-1",
      "--context-hash",
      HASH,
      "--digest",
      "schema drafted",
      "--next-action",
      "run the tests",
      "--open-loop",
      "index names",
    ],
    tool: "awr_session_checkpoint",
    args: {
      conversation: "conv-1",
      context_hash: HASH,
      digest: "schema drafted",
      next_action: "run the tests",
      open_loops: ["index names"],
    },
    write: true,
    explicitRevision: true,
  },
  {
    cli: [
      "work",
      "progress",
      "W-2",
      "--conversation",
      "conv-1",
      "--reason",
      "migration written",
      "--next-action",
      "run the repository tests",
    ],
    tool: "awr_work_transition",
    args: {
      work: "W-2",
      action: "progress",
      conversation: "conv-1",
      reason: "migration written",
      next_action: "run the repository tests",
    },
    write: true,
  },
  {
    cli: ["evidence", "add", "--input", "<dir>/ev-schema.json"],
    files: { "ev-schema.json": evidenceDraft("ev-schema") },
    tool: "awr_evidence_record",
    args: { ...evidence("ev-schema"), work: "W-2" },
    write: true,
  },
  {
    cli: [
      "evidence",
      "add",
      "ev-tests",
      "--type",
      "test",
      "--level",
      "locally_verified",
      "--summary",
      "repository tests pass",
      "--locator",
      "https://ci.example/run/8",
      "--source-sha",
      SHA,
      "--work",
      "W-2",
      "--scope",
      "server/orders",
    ],
    tool: "awr_evidence_record",
    args: {
      external_key: "ev-tests",
      evidence_type: "test",
      level: "locally_verified",
      summary: "repository tests pass",
      locator: "https://ci.example/run/8",
      source_sha: SHA,
      work: "W-2",
      scope: ["server/orders"],
    },
    write: true,
    explicitRevision: true,
  },
  {
    cli: [
      "event",
      "append",
      "--type",
      "review.requested",
      "--work",
      "W-2",
      "--summary",
      "please review",
      "--importance",
      "high",
      "--payload",
      "<dir>/payload.json",
    ],
    files: { "payload.json": { body: "sam, please" } },
    tool: "awr_event_append",
    args: {
      event_type: "review.requested",
      work: "W-2",
      summary: "please review",
      importance: "high",
      payload: { body: "sam, please" },
    },
    write: true,
  },
  {
    cli: [
      "work",
      "block",
      "W-2",
      "--conversation",
      "conv-1",
      "--reason",
      "no database",
      "--blocker",
      "waiting for a database",
    ],
    tool: "awr_work_transition",
    args: {
      work: "W-2",
      action: "block",
      conversation: "conv-1",
      reason: "no database",
      blocker: "waiting for a database",
    },
    write: true,
  },
  {
    cli: ["work", "unblock", "W-2", "--conversation", "conv-1", "--reason", "database ready"],
    tool: "awr_work_transition",
    args: { work: "W-2", action: "unblock", conversation: "conv-1", reason: "database ready" },
    write: true,
  },
  {
    cli: [
      "session",
      "wait",
      "--conversation",
      "conv-1",
      "--question",
      "Merge now?",
      "--context-hash",
      HASH,
      "--digest",
      "all green",
      "--next-action",
      "merge",
    ],
    tool: "awr_session_wait",
    args: {
      conversation: "conv-1",
      question: "Merge now?",
      context_hash: HASH,
      digest: "all green",
      next_action: "merge",
    },
    write: true,
  },
  {
    cli: ["session", "reply"],
    lateCli: (earlier) => [waitId(earlier), "--reply", "yes"],
    tool: "awr_session_reply",
    args: { reply: "yes" },
    late: (earlier) => ({ wait: waitId(earlier) }),
    write: true,
  },
  {
    cli: [
      "work",
      "complete",
      "W-2",
      "--conversation",
      "conv-1",
      "--reason",
      "schema and tests done",
      "--input",
      "<dir>/completion.json",
      "--request-id",
      "req-complete-w2",
    ],
    files: {
      "completion.json": {
        version: 1,
        source_sha: SHA,
        acceptance: [
          { criterion: "schema", evidence: ["ev-schema"] },
          { criterion: "tests", evidence: ["ev-tests"] },
        ],
      },
    },
    tool: "awr_work_transition",
    args: {
      work: "W-2",
      action: "complete",
      conversation: "conv-1",
      reason: "schema and tests done",
      completion: {
        version: 1,
        source_sha: SHA,
        acceptance: [
          { criterion: "schema", evidence: ["ev-schema"] },
          { criterion: "tests", evidence: ["ev-tests"] },
        ],
      },
      request_id: "req-complete-w2",
    },
    write: true,
  },
  {
    cli: ["operation", "get", "req-complete-w2"],
    tool: "awr_operation_get",
    args: { request_id: "req-complete-w2" },
  },
  {
    cli: ["operation", "recover", "req-complete-w2"],
    tool: "awr_operation_recover",
    args: { request_id: "req-complete-w2" },
    write: true,
  },
  {
    cli: ["session", "start", "--work", "W-3", "--conversation", "conv-3", ...AGENT],
    tool: "awr_session_start",
    args: { work: "W-3", conversation: "conv-3", ...agentArgs },
    write: true,
  },
  {
    cli: ["session", "claim", "--conversation", "conv-3", "--ttl-ms", "600000"],
    tool: "awr_session_claim",
    args: { conversation: "conv-3", action: "acquire", ttl_ms: 600000 },
    write: true,
  },
  {
    cli: ["session", "release", "--conversation", "conv-3"],
    lateCli: (earlier) => ["--claim", claimId(earlier)],
    tool: "awr_session_claim",
    args: { conversation: "conv-3", action: "release" },
    late: (earlier) => ({ claim: claimId(earlier) }),
    write: true,
  },
  {
    cli: ["work", "cancel", "W-7", "--conversation", "conv-3", "--reason", "feed postponed"],
    tool: "awr_work_transition",
    args: { work: "W-7", action: "cancel", conversation: "conv-3", reason: "feed postponed" },
    write: true,
  },
  {
    cli: ["work", "reopen", "W-7", "--conversation", "conv-3", "--reason", "feed is back"],
    tool: "awr_work_transition",
    args: { work: "W-7", action: "reopen", conversation: "conv-3", reason: "feed is back" },
    write: true,
  },
  {
    cli: ["session", "resume", "--conversation", "conv-4", ...AGENT, "--no-claim"],
    lateCli: (earlier) => ["--session", sessionId(earlier)],
    tool: "awr_session_resume",
    args: { conversation: "conv-4", ...agentArgs, claim: "none" },
    ignore: ["context"],
    late: (earlier) => ({ session: sessionId(earlier) }),
    write: true,
  },
  {
    cli: ["session", "end", "--conversation", "conv-4", "--outcome", "ended"],
    tool: "awr_session_end",
    args: { conversation: "conv-4", outcome: "ended" },
    write: true,
  },
  { cli: ["source", "reindex"], tool: "awr_source_reindex", args: {}, write: true },
  { cli: ["status", "--view", "full"], tool: "awr_project_status", args: { view: "full" } },
];
