import type { Kysely } from "kysely";
import type { HistoryFilters } from "../../read/event-history.js";
import type { LedgerSchema } from "../../storage/schema.js";
import { choice, id, limit, object, revision, text } from "../json-schema.js";
import { type OperationHost, type OperationOptions, operation } from "../operation.js";

// The event and work histories: CLI-only reads of the runtime (docs/design/work-branches.md).

export function readAt<T>(
  host: OperationHost,
  options: OperationOptions,
  fn: (db: Kysely<LedgerSchema>, revision: number) => Promise<T>,
): Promise<T> {
  const { store } = host.runtime;
  return store.read(async (db) => fn(db, await store.currentRevision(db)), options);
}

const paging = {
  event_type: id(),
  after_revision: revision(),
  cursor: text(),
  limit: limit(),
};

export interface EventHistoryInput extends Omit<HistoryFilters, "branch"> {
  branch?: string | undefined;
  main?: boolean | undefined;
}

export const eventHistoryOperation = operation({
  tool: "awr_event_history",
  kind: "read",
  freshness: "runtime",
  surface: "cli",
  description: "The project's events in order, filtered exactly, a page at a time (no payloads).",
  input: object({
    work: id(),
    session: id(),
    importance: choice(["low", "normal", "high", "critical"]),
    branch: id(),
    main: { type: "boolean", default: false },
    through_revision: revision(),
    ...paging,
  }),
  run: async (host, input: EventHistoryInput, caller, options) => {
    const { historyBranch, historyPage } = await import("../../read/event-history.js");
    return readAt(host, options, async (db, rev) => {
      const { main, branch, ...filters } = input;
      const exact = await historyBranch(db, branch, main);
      const page = await historyPage(
        db,
        host.runtime.store.projectId,
        { ...filters, branch: exact },
        caller,
      );
      return { project_revision: rev, query: input, payloads_included: false, ...page };
    });
  },
  cli: [{ path: ["event", "history"], summary: "the event history, filtered, page by page" }],
});

export interface WorkHistoryInput extends Omit<HistoryFilters, "branch" | "work"> {
  work: string;
  all_branches?: boolean | undefined;
}

export const workHistoryOperation = operation({
  tool: "awr_work_history",
  kind: "read",
  freshness: "runtime",
  surface: "cli",
  description: "A work item's events on the selected branch (or every branch), page by page.",
  input: object(
    { work: id(), session: id(), all_branches: { type: "boolean", default: false }, ...paging },
    ["work"],
  ),
  run: async (host, input: WorkHistoryInput, caller, options) => {
    const { historyPage, workHistoryBranch } = await import("../../read/event-history.js");
    return readAt(host, options, async (db, rev) => {
      const { all_branches, ...filters } = input;
      const branch = await workHistoryBranch(db, all_branches);
      const page = await historyPage(
        db,
        host.runtime.store.projectId,
        { ...filters, branch },
        caller,
      );
      return { project_revision: rev, work: input.work, ...page };
    });
  },
  cli: [
    {
      path: ["work", "history"],
      summary: "a work item's history on the selected branch (--all-branches: every branch)",
      operands: [{ field: "work", name: "WORK" }],
    },
  ],
});
