import type { ContextBootstrapInput } from "../../context/bootstrap-context.js";
import { throwIfAborted } from "../../internal/abort.js";
import type { OperationListInput } from "../../journal/operation-get.js";
import type { SourceScan } from "../../projection/stale-check.js";
import type { WorkListFilters } from "../../read/work-list.js";
import { contextScope } from "../context-result.js";
import { about, choice, object } from "../json-schema.js";
import { operation } from "../operation.js";
import { checkSources } from "../source-check.js";
import { readAt } from "./history-operations.js";
import { project } from "./read-operations.js";

// The reads answered on the command line only (context bootstrap, work list, source
// list and scan) and the journal listing operators use: CLI-only entries, never on tools/list.
//
// Their commands are written by hand in the CLI (apps/cli/src/commands: project-commands.ts,
// context-bootstrap-command.ts, source-commands.ts), which runs them through the catalog: their
// help, flag parsing (the bootstrap's default budget) and views are the CLI's own, so `cli` is
// empty. The same entries are what `ledger.call` and `ledger.execute` run.
//
// The CLI has always printed these answers without the read-policy fields, so the four behind a
// command are `scoped`, answering in their own envelope: the bootstrap and the work list check
// the sources themselves (checkSources, as a `sources` read is checked: SourceStale, or a reindex
// first when the caller asks for a refresh), and the source list and scan report on the sources
// without ever refreshing them. Their arguments carry no bounds of ours: each reaches the implementation as
// the command line gave it, and the implementation answers it (an unknown key, a budget out of
// range) as it did before it was an entry.

const text = (description: string) => about(description, { type: "string" });

/** awr_source_scan's answer, as `awr source scan --json` prints it. */
export interface SourceScanResult {
  project_revision: number;
  /** No source changed since the last index. */
  fresh: boolean;
  changed_paths: string[];
  refused: SourceScan["refused"];
}

export const contextBootstrapOperation = operation({
  tool: "awr_context_bootstrap",
  kind: "read",
  surface: "cli",
  freshness: "scoped",
  description:
    "L0 context: the work item's identity, state and next action, every applicable hard rule, the session and its checkpoint; budget 1000 by default.",
  input: object({
    work: text("The work item; default: the session's, else the current one."),
    session: text("The session to restore (not with conversation)."),
    conversation: text("The host conversation whose session to restore."),
    agent: text("The agent whose agent-scoped rules apply."),
    // The range is the implementation's to refuse, with its own message.
    budget: about("Token budget of the rendered packet.", { type: "integer" }),
  }),
  run: async (host, input: ContextBootstrapInput, caller, options) => {
    throwIfAborted(options.signal);
    const ledger = project(host);
    await checkSources(host, caller, options);
    const { bootstrapContext } = await import("../../context/bootstrap-context.js");
    return readAt(host, options, (db, rev) =>
      bootstrapContext(db, input, contextScope(ledger, caller, rev)),
    );
  },
  cli: [],
});

export const workListOperation = operation({
  tool: "awr_work_list",
  kind: "read",
  surface: "cli",
  freshness: "scoped",
  description: "Every work item in source order, narrowed by status, milestone and goal.",
  input: object({
    status: text("Only work in this status."),
    milestone: text("Only work of this milestone."),
    goal: text("Only work of this goal."),
  }),
  run: async (host, input: WorkListFilters, caller, options) => {
    await checkSources(host, caller, options);
    const { workList } = await import("../../read/work-list.js");
    return readAt(host, options, async (db, rev) => ({
      project_revision: rev,
      items: await workList(db, input, rev),
    }));
  },
  cli: [],
});

export const operationListOperation = operation({
  tool: "awr_operation_list",
  kind: "read",
  surface: "cli",
  freshness: "runtime",
  description:
    "Your journal, newest first; outcome unknown lists the requests that still need awr_operation_recover.",
  input: object({
    outcome: about("recorded or unknown (still to recover).", choice(["recorded", "unknown"])),
    // 20 when omitted; the listing has always taken any page size and revision.
    limit: about("At most this many entries.", { type: "integer" }),
    before_revision: about("Page: entries begun before this revision.", { type: "integer" }),
  }),
  run: async (host, input: OperationListInput, caller, options) =>
    (await import("../../journal/operation-get.js")).operationList(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [],
});

export const sourceListOperation = operation({
  tool: "awr_source_list",
  kind: "read",
  surface: "cli",
  // The index's own record of each source: it never looks at the files, so it answers while
  // they are stale or unreadable.
  freshness: "scoped",
  description:
    "The manifest's sources in manifest order, each with its indexed fingerprint, entity count and revision.",
  input: object({}),
  run: async (host, _input: Record<string, never>, _caller, options) => {
    const ledger = project(host);
    const { sourceList } = await import("../../read/source-list.js");
    return readAt(host, options, async (db, rev) => ({
      project_revision: rev,
      sources: await sourceList(db, ledger.manifest().manifest),
    }));
  },
  cli: [],
});

export const sourceScanOperation = operation({
  tool: "awr_source_scan",
  kind: "read",
  surface: "cli",
  // It compares the files with the index itself, and never refreshes: a scan writes nothing.
  freshness: "scoped",
  description:
    "The sources changed since the last index, and those a reindex would refuse, each with the reindex's code and message; reads files, writes nothing.",
  input: object({}),
  run: async (host, _input: Record<string, never>): Promise<SourceScanResult> => {
    const ledger = project(host);
    const { StaleChecker } = await import("../../projection/stale-check.js");
    const { store } = host.runtime;
    // Never opens a file the reindex would refuse to read.
    const { changed, refused } = await new StaleChecker().scan(
      store,
      ledger.root,
      ledger.manifest().manifest,
      { explain: true },
    );
    return {
      project_revision: await store.currentRevision(),
      fresh: changed.length === 0,
      changed_paths: changed,
      refused,
    };
  },
  cli: [],
});
