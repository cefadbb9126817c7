import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import type { RuntimeCaller } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { resolveBranch, selectedBranchId } from "../runtime/branch-select.js";
import { eventSeenBy } from "../runtime/conversation-privacy.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";

// `awr event history` and `awr work history` (docs/design/work-branches.md, "Result shapes"):
// events in the order they were written (seq), a page at a time, each on the branch it was
// written on; never relabelled.

/** An event as the histories and `event show` list it: a brief, without payload. */
export interface EventBrief {
  id: string;
  type: string;
  summary: string | null;
  importance: string;
  session_id: string | null;
  branch_id: string | null;
  project_revision: number;
  created_at: number;
  /** The work key. */
  work_item_id: string | null;
  /** The source path, for source events. */
  source_id: string | null;
  checkpoint_id: string | null;
  /** Always null: there are no artifacts here. */
  artifact_id: null;
}

export interface HistoryCursor {
  project_id: string;
  project_revision: number;
  created_at: number;
  event_id: string;
}

export interface HistoryFilters {
  work?: string | undefined;
  session?: string | undefined;
  event_type?: string | undefined;
  importance?: string | undefined;
  /** undefined: every branch; null: main exactly; else that branch exactly. */
  branch?: string | null | undefined;
  after_revision?: number | undefined;
  through_revision?: number | undefined;
  /** The `next_cursor` of the previous page, as JSON text. */
  cursor?: string | undefined;
  limit?: number | undefined;
}

export interface HistoryPage {
  events: EventBrief[];
  next_cursor: HistoryCursor | null;
}

const text = (payload: Record<string, unknown>, key: string) =>
  typeof payload[key] === "string" ? (payload[key] as string) : null;

export function eventBrief(row: EventTable): EventBrief {
  let payload: Record<string, unknown> = {};
  try {
    payload = JSON.parse(row.payload) as Record<string, unknown>;
  } catch {
    payload = {};
  }
  return {
    id: row.id,
    type: row.type,
    summary: row.summary,
    importance: row.importance ?? "normal",
    session_id: row.session,
    branch_id: row.branch ?? null,
    project_revision: Number(row.revision),
    created_at: Date.parse(row.time),
    work_item_id: row.work,
    source_id: text(payload, "source_path") ?? text(payload, "path"),
    checkpoint_id: text(payload, "checkpoint_id") ?? text(payload, "checkpoint"),
    artifact_id: null,
  };
}

function parseCursor(cursor: string, projectId: string): HistoryCursor {
  let parsed: Partial<HistoryCursor>;
  try {
    parsed = JSON.parse(cursor) as Partial<HistoryCursor>;
  } catch {
    parsed = {};
  }
  if (typeof parsed.event_id !== "string" || parsed.project_id !== projectId) {
    throw new LedgerError(
      "InvalidInput",
      "cursor must be the next_cursor JSON of a previous page of this project's history",
      { field: "cursor" },
    );
  }
  return parsed as HistoryCursor;
}

/** One page of history after `cursor` (or from the start), filtered exactly. */
export async function historyPage(
  db: Kysely<LedgerSchema>,
  projectId: string,
  filters: HistoryFilters,
  caller: RuntimeCaller,
): Promise<HistoryPage> {
  const limit = filters.limit ?? LIMITS.historyLimitDefault;
  let afterSeq = 0;
  if (filters.cursor !== undefined) {
    const cursor = parseCursor(filters.cursor, projectId);
    const row = await db
      .selectFrom("events")
      .select("seq")
      .where("id", "=", cursor.event_id)
      .executeTakeFirst();
    if (row === undefined) {
      throw new LedgerError("InvalidInput", `cursor names no event ${cursor.event_id}`, {
        field: "cursor",
      });
    }
    afterSeq = Number(row.seq);
  }
  const { branch } = filters;
  const rows = await db
    .selectFrom("events")
    .selectAll()
    .where("seq", ">", afterSeq)
    .where("revision", ">", filters.after_revision ?? 0)
    .$if(filters.through_revision !== undefined, (q) =>
      q.where("revision", "<=", filters.through_revision as number),
    )
    .$if(filters.work !== undefined, (q) => q.where("work", "=", filters.work as string))
    .$if(filters.session !== undefined, (q) => q.where("session", "=", filters.session as string))
    .$if(filters.event_type !== undefined, (q) =>
      q.where("type", "=", filters.event_type as string),
    )
    .$if(filters.importance !== undefined, (q) =>
      q.where("importance", "=", filters.importance as string),
    )
    .$if(branch !== undefined, (q) =>
      q.where((eb) =>
        branch === null ? eb("branch", "is", null) : eb("branch", "=", branch as string),
      ),
    )
    .orderBy("seq")
    .limit(limit + 1)
    .execute();
  // Another client's conversation text is replaced, as everywhere events are read.
  const page = rows.slice(0, limit).map((row) => eventBrief(eventSeenBy(row, caller.client)));
  const last = page.at(-1);
  return {
    events: page,
    next_cursor:
      rows.length > limit && last !== undefined
        ? {
            project_id: projectId,
            project_revision: last.project_revision,
            created_at: last.created_at,
            event_id: last.id,
          }
        : null,
  };
}

/** `--branch ID` (an id, not a name) xor `--main`; neither: every branch. */
export async function historyBranch(
  db: Kysely<LedgerSchema>,
  branch: string | undefined,
  main: boolean | undefined,
): Promise<string | null | undefined> {
  if (branch !== undefined && main === true) {
    throw new LedgerError("InvalidInput", "pass --branch ID or --main, not both", {
      field: "branch",
    });
  }
  if (main === true) return null;
  if (branch === undefined) return undefined;
  const row = await resolveBranch(db, branch);
  if (row === null || row.id !== branch) {
    throw new LedgerError(
      "InvalidInput",
      `--branch takes a branch id; for main pass --main (awr branch list shows the ids)`,
      { field: "branch", branch },
    );
  }
  return row.id;
}

/** Work history: the selected branch exactly, unless `all_branches`. */
export async function workHistoryBranch(
  db: Kysely<LedgerSchema>,
  allBranches: boolean | undefined,
): Promise<string | null | undefined> {
  return allBranches === true ? undefined : selectedBranchId(db);
}
