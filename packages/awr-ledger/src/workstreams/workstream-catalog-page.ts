import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { type EntityView, entitiesOfKind } from "../read/entity-view.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { ResolvedScope } from "./workstream-access.js";
import type { WorkstreamArgs } from "./workstream-capabilities.js";
import { bindCursor, openCursor, staleCursor } from "./workstream-cursor.js";
import type { Visibility } from "./workstream-visibility.js";

interface Row {
  id: string;
  item: Record<string, unknown>;
  source: { path: string; line_start: number; line_end: number } | null;
}

/** An entity as catalog and object pages show it: its fields, parsed attributes and place. */
export function entityItem(view: EntityView): Row {
  const { source, ...item } = view;
  return { id: view.id, item, source };
}

/** The entity kinds behind a catalog kind (a plan is a milestone or a plan entry). */
const ENTITY_KINDS: Record<string, readonly string[]> = {
  goal: ["goal"],
  plan: ["milestone", "plan"],
  rule: ["rule"],
  work: ["work"],
  decision: ["decision"],
};

async function visibleRows(
  db: Kysely<LedgerSchema>,
  revision: number,
  kind: string,
  visible: Visibility,
): Promise<Row[]> {
  const entityKinds = ENTITY_KINDS[kind];
  if (entityKinds !== undefined) {
    const rows: Row[] = [];
    for (const entityKind of entityKinds) {
      for (const view of await entitiesOfKind(db, revision, entityKind)) {
        if (visible.entity(view.kind, view.key)) rows.push(entityItem(view));
      }
    }
    return rows;
  }
  if (kind === "relation") {
    const deps = await db
      .selectFrom("dependencies as d")
      .innerJoin("workstream_ownership as o", "o.work", "d.work_key")
      .select(["d.work_key", "d.depends_on", "d.required", "d.source_path"])
      .where("o.workstream_id", "=", visible.stream.id)
      .execute();
    // An edge to another workstream's work would name it: only edges inside the scope are shown.
    return deps
      .filter((d) => visible.work.has(d.depends_on))
      .map((d) => ({
        id: `${d.work_key}\u0000${d.depends_on}`,
        item: {
          id: `${d.work_key}/depends_on/${d.depends_on}`,
          from_kind: "work",
          from_key: d.work_key,
          relation: "depends_on",
          to_kind: "work",
          to_key: d.depends_on,
          required: Number(d.required) === 1,
        },
        source: null,
      }));
  }
  if (kind === "evidence") {
    const rows = await db
      .selectFrom("evidence as e")
      .innerJoin("workstream_ownership as o", "o.work", "e.work")
      .selectAll("e")
      .where("o.workstream_id", "=", visible.stream.id)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      item: { ...row, scope: JSON.parse(row.scope) as string[] },
      source: null,
    }));
  }
  // artifact: this build records no artifacts, so every scope has none.
  return [];
}

/**
 * awr_workstream catalog `{kind, state?, cursor?, limit?}`: one page of the workstream's visible
 * records of a kind, counted and ordered after filtering, with a scope-bound cursor. Retired
 * records are not kept by this build's projection, so `retired` pages are empty.
 */
export async function catalogPage(
  db: Kysely<LedgerSchema>,
  revision: number,
  scope: ResolvedScope,
  visible: Visibility,
  args: WorkstreamArgs,
): Promise<Record<string, unknown>> {
  if (args["kind"] === "source") {
    throw new LedgerError(
      "Unsupported",
      "A whole-source catalog needs project access, which workstream readers do not have; list a kind such as work, goal or rule.",
    );
  }
  const kind = args["kind"] as string;
  const state = (args["state"] as string | undefined) ?? "active";
  const limit = (args["limit"] as number | undefined) ?? LIMITS.limit.default;
  const cursor = openCursor(args["cursor"], scope.binding);
  if (cursor !== undefined) {
    if (cursor["kind"] !== kind || cursor["scope"] !== state) {
      throw new LedgerError(
        "InvalidInput",
        "This cursor belongs to another catalog kind or state; pass the same kind and state as the page it came from.",
        { field: "cursor" },
      );
    }
    if (cursor["project_revision"] !== revision)
      throw staleCursor(cursor["project_revision"], revision);
  }
  const active = (await visibleRows(db, revision, kind, visible)).sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const listed = state === "retired" ? [] : active;
  const after = typeof cursor?.["after_id"] === "string" ? cursor["after_id"] : undefined;
  const rest = after === undefined ? listed : listed.filter((row) => row.id > after);
  const items = rest.slice(0, limit);
  const hasMore = rest.length > limit;
  const last = items.at(-1);
  return {
    page: {
      project_id: scope.stream.project_id,
      project_revision: revision,
      kind,
      scope: state,
      total: listed.length,
      active_total: active.length,
      retired_total: 0,
      items: items.map(({ item, source }) => ({ item, source, active: true })),
      has_more: hasMore,
    },
    next_cursor: bindCursor(
      scope.binding,
      hasMore && last !== undefined
        ? {
            version: 1,
            project_id: scope.stream.project_id,
            project_revision: revision,
            kind,
            scope: state,
            after_id: last.id,
          }
        : null,
    ),
  };
}
