import type { Kysely } from "kysely";
import type { ContextCompileInput } from "../../context/compile-context.js";
import { LedgerError } from "../../errors.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import type { ProjectStatusAnswer, StatusFilters } from "../../read/read-extras.js";
import type { SearchInput } from "../../read/search.js";
import { SEARCH_KINDS } from "../../read/search-kinds.js";
import { branchIdOf, resolveBranch } from "../../runtime/branch-select.js";
import { STATUS_QUEUES, type StatusQueue } from "../../status/status-queues.js";
import type { LedgerSchema } from "../../storage/schema.js";
import type { CliCallOption } from "../cli-spec.js";
import { completeContext, contextScope } from "../context-result.js";
import {
  about,
  branch,
  choice,
  id,
  limit,
  nullable,
  object,
  strings,
  text,
} from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { type OperationHost, type OperationOptions, operation } from "../operation.js";
import { conversationId, sessionId, sourceSha } from "../shared-fields.js";

/** Runs a read of the projection at one consistent revision. */
function readAt<T>(
  host: OperationHost,
  options: OperationOptions,
  fn: (db: Kysely<LedgerSchema>, revision: number) => Promise<T>,
): Promise<T> {
  const { store } = host.runtime;
  return store.read(async (db) => fn(db, await store.currentRevision(db)), options);
}

/** The project behind a read of its sources; Unsupported on a runtime opened straight on a store. */
export function project(host: OperationHost) {
  if (host.project === undefined) {
    throw new LedgerError("Unsupported", "this runtime has no project sources to read");
  }
  return host.project;
}

export interface ProjectStatusInput extends StatusFilters {
  branch?: string | null | undefined;
}

/** `awr status --queue`'s paging (call options), checked in flag terms. */
function statusPage(options: OperationOptions, view: string) {
  const { statusQueue: queue, statusOffset: offset, statusPageSize: pageSize } = options;
  if (queue === undefined) {
    if (offset !== undefined || pageSize !== undefined) {
      throw new LedgerError(
        "InvalidInput",
        "--offset and --page-size page one queue: add --queue",
        {
          field: "queue",
        },
      );
    }
    return undefined;
  }
  if (view !== "action") {
    throw new LedgerError(
      "InvalidInput",
      "--queue pages the action view: drop --view or use --view action",
      {
        field: "queue",
      },
    );
  }
  if (!(STATUS_QUEUES as readonly string[]).includes(queue)) {
    throw new LedgerError("InvalidInput", `--queue must be one of ${STATUS_QUEUES.join(", ")}`, {
      field: "queue",
    });
  }
  const { offsetMax, max } = LIMITS.statusPage;
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 0 || offset > offsetMax)) {
    throw new LedgerError("InvalidInput", `--offset must be a whole number 0..${offsetMax}`, {
      field: "offset",
    });
  }
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > max)) {
    throw new LedgerError("InvalidInput", `--page-size must be a whole number 1..${max}`, {
      field: "page_size",
    });
  }
  return { queue: queue as StatusQueue, offset, page_size: pageSize };
}

/** `--cached`: answer from the last recorded projection, without checking the sources. */
const CACHED: CliCallOption = {
  flag: "--cached",
  option: "cachedProjection",
  description:
    "read the last recorded snapshot without checking or refreshing the sources (currentness is not verified)",
};

export const projectStatusOperation = operation({
  tool: "awr_project_status",
  kind: "read",
  freshness: "sources",
  description:
    "Daily action queue (view=action, the default): current, ready, waiting and blocked work, each bounded with totals and omissions; completed work is aggregated under history. view=full is the earlier project overview, view=summary its shorter form. work/goal/milestone narrow the selection; source_sha checks recorded evidence.",
  input: object({
    branch: branch(),
    source_sha: sourceSha(),
    view: about(
      "action: the daily queues; full: the project overview; summary: a shorter overview.",
      {
        ...choice(["action", "full", "summary"]),
        default: "action",
      },
    ),
    work: about("Work keys to scope to.", strings()),
    goal: about("Goal key to scope to.", nullable(id())),
    milestone: about("Milestone to scope to.", nullable(id())),
  }),
  run: (host, input: ProjectStatusInput, _caller, options): Promise<ProjectStatusAnswer> => {
    const view = input.view ?? "action";
    const page = statusPage(options, view);
    return readAt(host, options, async (db, revision) => {
      const ledger = project(host);
      const branch = branchIdOf(await resolveBranch(db, input.branch));
      const identity = { id: ledger.projectId, name: ledger.projectName };
      if (view === "action") {
        const { actionStatus } = await import("../../status/status-action.js");
        return (await actionStatus(
          db,
          identity,
          revision,
          branch,
          input,
          page,
        )) as unknown as ProjectStatusAnswer;
      }
      if (view === "summary") {
        const { summaryStatus } = await import("../../status/status-summary-view.js");
        return (await summaryStatus(db, identity, revision, branch, input)) as ProjectStatusAnswer;
      }
      const { projectStatus } = await import("../../read/project-status.js");
      const { projectStatusView } = await import("../../read/read-extras.js");
      const status = await projectStatus(db, identity, revision, branch);
      return (await projectStatusView(db, status, { ...input, view })) as ProjectStatusAnswer;
    });
  },
  cli: [
    {
      path: ["status"],
      summary:
        "the daily action queues (current, ready, waiting, blocked); --view full for the project overview",
      callOptions: [
        CACHED,
        {
          flag: "--queue",
          placeholder: "<queue>",
          option: "statusQueue",
          description:
            "page through one queue of the action view: current, ready, waiting or blocked",
        },
        {
          flag: "--offset",
          placeholder: "<n>",
          option: "statusOffset",
          integer: true,
          description: "with --queue: the first entry of the page (default 0)",
        },
        {
          flag: "--page-size",
          placeholder: "<n>",
          option: "statusPageSize",
          integer: true,
          description: `with --queue: entries per page (1..${LIMITS.statusPage.max}, default ${LIMITS.statusPage.default})`,
        },
      ],
      view: "status",
    },
  ],
});

export const workReadyOperation = operation({
  tool: "awr_work_ready",
  kind: "read",
  freshness: "sources",
  description:
    "Work you could start now (status ready, unclaimed, required dependencies completed) with diagnostics and active_claims. Pick one, then awr_session_start with claim: true.",
  input: object({ branch: branch(), limit: limit() }),
  run: async (host, input: { limit?: number; branch?: string | null }, _caller, options) => {
    const { workReady } = await loadInOrder(() => import("../../read/work-ready.js"));
    const { workReadyView } = await import("../../read/read-extras.js");
    return readAt(host, options, async (db, revision) => {
      const branch = branchIdOf(await resolveBranch(db, input.branch));
      return workReadyView(db, await workReady(db, input, revision, branch));
    });
  },
  cli: [
    {
      path: ["ready"],
      summary: "work that can start now: ready, unclaimed, dependencies completed",
      callOptions: [CACHED],
      view: "ready",
    },
  ],
});

export interface WorkGetToolInput {
  work: string;
  branch?: string | null | undefined;
  source_sha?: string | undefined;
}

export const workGetOperation = operation({
  tool: "awr_work_get",
  kind: "read",
  freshness: "sources",
  description:
    "One work item in full: acceptance, dependencies with their states, decisions, evidence (with currency against source_sha), active and expired claims. NotFound: find the key with awr_search.",
  input: object(
    { work: about("Work item key.", id()), branch: branch(), source_sha: sourceSha() },
    ["work"],
  ),
  run: async (host, input: WorkGetToolInput, _caller, options) => {
    const { workGet } = await loadInOrder(() => import("../../read/work-get.js"));
    const { workGetView } = await import("../../read/read-extras.js");
    return readAt(host, options, async (db, revision) => {
      const branch = branchIdOf(await resolveBranch(db, input.branch));
      const result = await workGet(db, { work: input.work }, revision);
      return workGetView(db, result, input.source_sha, branch);
    });
  },
  cli: [
    {
      path: ["work", "show"],
      summary: "one work item: status, acceptance, dependencies, decisions, evidence, claims",
      operands: [{ field: "work", name: "WORK" }],
      callOptions: [CACHED],
      view: "work",
    },
  ],
});

export interface ContextCompileToolInput extends ContextCompileInput {
  branch?: string | null | undefined;
  source_sha?: string | undefined;
}

export const contextCompileOperation = operation({
  tool: "awr_context_compile",
  kind: "read",
  freshness: "sources",
  description:
    "The bounded, deterministic context packet for a work item or session, under work_context (rendered_context, context_hash, token_estimate), with completeness and the continuity of waits and replies. checkpoint or after_revision (not both) limit it to changes. BudgetExceeded {required, budget}: retry with more. ContextIncomplete: required facts are missing.",
  input: object({
    work: about("Work key; omit: the session's.", nullable(id())),
    session: nullable(sessionId()),
    conversation: nullable(conversationId()),
    detached: about("Use no session (needs work).", { type: "boolean", default: false }),
    agent: about("Your agent name; scopes rules.", nullable(id())),
    branch: branch(),
    goals: about("Goal keys; default: primary goals.", strings()),
    paths: about("Paths you will touch; scope rules.", nullable(strings())),
    tags: about("Tags that scope rules.", nullable(strings())),
    source_sha: sourceSha(),
    intent: about("What you will do (default work).", nullable(text())),
    budget: about("Token budget (o200k_base).", {
      type: ["integer", "null"],
      minimum: LIMITS.budget.min,
      maximum: LIMITS.budget.max,
      default: LIMITS.budget.default,
    }),
    checkpoint: about("Delta since this checkpoint id.", nullable(id())),
    after_revision: about(
      "Delta since this project revision.",
      nullable({ type: "integer", minimum: 0, maximum: LIMITS.revisionMax }),
    ),
  }),
  run: async (host, input: ContextCompileToolInput, caller, options) => {
    const { compileContext } = await loadInOrder(() => import("../../context/compile-context.js"));
    const ledger = project(host);
    return readAt(host, options, async (db, revision) =>
      completeContext(
        await compileContext(
          db,
          { ...input, ordinaryBranch: options?.contextBranch },
          contextScope(ledger, caller, revision),
        ),
      ),
    );
  },
  cli: [
    {
      path: ["context", "compile"],
      summary: "compile the bounded context packet for a work item or a session",
      operands: [{ field: "work", name: "WORK", optional: true }],
      flags: { goals: "--goal", paths: "--path", tags: "--tag", branch: null },
      callOptions: [
        {
          flag: "--branch",
          placeholder: "<id>",
          option: "contextBranch",
          description:
            "compile on this work branch (its id, or main) from the ordinary baseline; `awr branch context NAME` compiles the changes since its fork",
        },
      ],
      view: "context",
    },
    {
      path: ["branch", "context"],
      summary: "the context packet of a work item on a branch, with the changes since its fork",
      operands: [{ field: "branch", name: "BRANCH" }],
      flags: {
        goals: "--goal",
        paths: "--path",
        tags: "--tag",
        branch: null,
        conversation: null,
        checkpoint: null,
        after_revision: null,
      },
      view: "context",
    },
  ],
});

export const searchOperation = operation({
  tool: "awr_search",
  kind: "read",
  freshness: "sources",
  description:
    "Full-text search over work, goals, plans, rules, decisions, evidence and events (never payloads), filtered by kind, status or work. Finds a key you do not know.",
  input: object({
    text: about("Words to find.", { type: ["string", "null"], maxLength: LIMITS.searchTextBytes }),
    kind: about("Only hits of this kind.", {
      type: ["string", "null"],
      enum: [...SEARCH_KINDS, null],
    }),
    status: about("Only this status.", nullable(id())),
    work: about("Only this work item's records.", nullable(id())),
    limit: limit(),
  }),
  run: async (host, input: SearchInput, caller, options) => {
    const { search } = await loadInOrder(() => import("../../read/search.js"));
    return readAt(host, options, (db, revision) =>
      search(db, host.runtime.store.dialect, input, revision, caller.client),
    );
  },
  cli: [
    {
      path: ["search"],
      summary: "full-text search over work, goals, plans, rules, decisions, evidence and events",
      operands: [{ field: "text", name: "TEXT", optional: true }],
      flags: { kind: "--type" },
      atLeastOne: ["text", "kind", "status", "work"],
      view: "search",
    },
  ],
});
