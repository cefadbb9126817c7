import type { EarlierResults, Step } from "./parity-steps.js";

/**
 * The parity steps of the seven tools that take `branch` (docs/design/isolation-conditions.md,
 * "CLI/MCP parity of the branch commands"). Each is called over MCP with a named branch, "main",
 * null and omitted, and through its CLI command with `--branch NAME`, `--branch main` and no flag
 * (the CLI has no null: no flag is the selected default, as null is for the tool). `branch
 * context NAME` is checked against `awr_context_compile {branch: NAME}`, and `evidence add
 * --input` with `branch_id` an id, null or absent against the tool with the name, "main" or
 * omitted. `branch create` and `branch switch` are CLI-only: they run as `cliOnly` steps on both
 * copies, so the two stay identical; the omitted forms then run again with the branch selected.
 */

const AGENT = ["--agent", "builder", "--provider", "example-provider", "--model", "example-model"];
const agentArgs = { agent: "builder", provider: "example-provider", model: "example-model" };
const BRANCH = "schema-review";
const SHA = "b".repeat(40);

/** A context that compiles complete on the demo project (W-2's rules need its paths). */
const CONTEXT_FLAGS = [
  "--work",
  "W-2",
  "--detached",
  "--path",
  "migrations/001-orders.sql",
  "--goal",
  "goal#checkout",
];
const CONTEXT_ARGS = {
  work: "W-2",
  detached: true,
  paths: ["migrations/001-orders.sql"],
  goals: ["goal#checkout"],
};

/** The CLI flag for a selector: none for null and omitted (both mean the selected default). */
type Selector = typeof BRANCH | "main" | null | undefined;
const SELECTORS: readonly Selector[] = [BRANCH, "main", null, undefined];
const flag = (s: Selector) => (typeof s === "string" ? ["--branch", s] : []);
const arg = (s: Selector) => (s === undefined ? {} : { branch: s });
const label = (s: Selector) => (s === undefined ? "omitted" : String(s));

function branchId(earlier: EarlierResults): string {
  const created = earlier.get("awr_branch_create") ?? [];
  const last = created[created.length - 1] as { branch?: { id?: string } } | undefined;
  if (last?.branch?.id === undefined) throw new Error("no earlier awr_branch_create result");
  return last.branch.id;
}

/** The reads and writes with `branch`, once for each selector. */
function everySelector(round: string): Step[] {
  return SELECTORS.flatMap((s): Step[] => [
    { cli: ["status", ...flag(s)], tool: "awr_project_status", args: arg(s) },
    { cli: ["ready", ...flag(s)], tool: "awr_work_ready", args: arg(s) },
    {
      cli: ["work", "show", "W-3", ...flag(s), "--source-sha", SHA],
      tool: "awr_work_get",
      args: { work: "W-3", source_sha: SHA, ...arg(s) },
    },
    typeof s === "string"
      ? {
          cli: ["branch", "context", s, ...CONTEXT_FLAGS],
          tool: "awr_context_compile",
          args: { ...CONTEXT_ARGS, branch: s },
        }
      : {
          cli: ["context", "compile", ...CONTEXT_FLAGS],
          tool: "awr_context_compile",
          args: { ...CONTEXT_ARGS, ...arg(s) },
        },
    {
      cli: [
        "event",
        "append",
        "--type",
        "note.branch",
        "--summary",
        `${round} ${label(s)}`,
        "--work",
        "W-3",
        ...flag(s),
      ],
      tool: "awr_event_append",
      args: { event_type: "note.branch", summary: `${round} ${label(s)}`, work: "W-3", ...arg(s) },
      write: true,
    },
    {
      cli: [
        "session",
        "start",
        "--work",
        "W-3",
        "--conversation",
        `conv-${round}-${label(s)}`,
        ...AGENT,
        ...flag(s),
      ],
      tool: "awr_session_start",
      args: { work: "W-3", conversation: `conv-${round}-${label(s)}`, ...agentArgs, ...arg(s) },
      write: true,
    },
  ]);
}

/** An evidence record as the tool takes it, and as the CLI's --input file gives it. */
const evidence = (key: string) => ({
  external_key: key,
  evidence_type: "test",
  level: "locally_verified",
  summary: `${key} passed`,
  locator: "https://ci.example/run/9",
  source_sha: SHA,
  scope: ["W-3"],
});
const draft = (key: string) => ({ ...evidence(key), work_item_key: "W-3" });

export const BRANCH_STEPS: Step[] = [
  {
    cli: ["branch", "create", BRANCH, "--actor", "builder", "--reason", "review the schema"],
    tool: "awr_branch_create",
    args: {},
    cliOnly: true,
  },
  ...everySelector("main-selected"),
  {
    cli: ["evidence", "add", "--input", "<dir>/ev-branch-id.json"],
    lateFiles: (earlier) => ({
      "ev-branch-id.json": { ...draft("ev-branch-id"), branch_id: branchId(earlier) },
    }),
    tool: "awr_evidence_record",
    args: { ...evidence("ev-branch-id"), work: "W-3", branch: BRANCH },
    write: true,
  },
  {
    cli: ["evidence", "add", "--input", "<dir>/ev-branch-null.json"],
    files: { "ev-branch-null.json": { ...draft("ev-branch-null"), branch_id: null } },
    tool: "awr_evidence_record",
    args: { ...evidence("ev-branch-null"), work: "W-3", branch: "main" },
    write: true,
  },
  {
    cli: ["evidence", "add", "--input", "<dir>/ev-branch-absent.json"],
    files: { "ev-branch-absent.json": draft("ev-branch-absent") },
    tool: "awr_evidence_record",
    args: { ...evidence("ev-branch-absent"), work: "W-3" },
    write: true,
  },
  {
    cli: ["branch", "switch", BRANCH, "--actor", "builder", "--reason", "work on the review"],
    tool: "awr_branch_switch",
    args: {},
    cliOnly: true,
  },
  ...everySelector("review-selected"),
  {
    cli: ["evidence", "add", "--input", "<dir>/ev-selected.json"],
    files: { "ev-selected.json": draft("ev-selected") },
    tool: "awr_evidence_record",
    args: { ...evidence("ev-selected"), work: "W-3", branch: null },
    write: true,
  },
];
