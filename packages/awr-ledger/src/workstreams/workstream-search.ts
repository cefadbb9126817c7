import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { entitiesOfKind, stringOf } from "../read/entity-view.js";
import type { LedgerSchema } from "../storage/schema.js";
import { accessDenied } from "./workstream-access.js";
import type { WorkstreamArgs } from "./workstream-capabilities.js";
import type { Visibility } from "./workstream-visibility.js";

/** The entity kinds behind each searchable kind, in the order hits are listed. */
const ENTITY_KINDS: [string, string][] = [
  ["work", "work"],
  ["goal", "goal"],
  ["plan", "milestone"],
  ["decision", "decision"],
  ["rule", "rule"],
];

const fold = (s: string | null | undefined) => (s ?? "").normalize("NFKC").toLowerCase();

/**
 * awr_workstream search `{text?, kind?, status?, work?, limit?}`: a literal, case-insensitive
 * match of `text` in the key, title, summary, body or next action of the workstream's visible
 * records (every visible record without `text`). Only visible records are ever looked at, so
 * another workstream's records cannot change the hits, their order or the count.
 */
export async function searchScope(
  db: Kysely<LedgerSchema>,
  revision: number,
  visible: Visibility,
  args: WorkstreamArgs,
): Promise<Record<string, unknown>> {
  const needle = fold(args["text"] as string | undefined);
  const kind = args["kind"] as string | undefined;
  const status = args["status"] as string | undefined;
  const work = args["work"] as string | undefined;
  const limit = (args["limit"] as number | undefined) ?? LIMITS.limit.default;
  if (work !== undefined && !visible.work.has(work)) throw accessDenied();
  const hits: Record<string, unknown>[] = [];
  for (const [name, entityKind] of ENTITY_KINDS) {
    if (kind !== undefined && kind !== name) continue;
    for (const view of await entitiesOfKind(db, revision, entityKind)) {
      if (!visible.entity(view.kind, view.key)) continue;
      if (work !== undefined && view.key !== work) continue;
      if (status !== undefined && view.status !== status) continue;
      const haystack = [
        view.key,
        view.title,
        view.summary,
        view.body,
        stringOf(view, "next_action"),
      ];
      if (needle !== "" && !haystack.some((field) => fold(field).includes(needle))) continue;
      hits.push({
        kind: name,
        key: view.key,
        title: view.title,
        status: view.status,
        source: view.source,
      });
    }
  }
  if (kind === undefined || kind === "evidence") {
    const rows = await db
      .selectFrom("evidence as e")
      .innerJoin("workstream_ownership as o", "o.work", "e.work")
      .select(["e.external_key", "e.summary", "e.level", "e.work"])
      .where("o.workstream_id", "=", visible.stream.id)
      .orderBy("e.revision")
      .execute();
    for (const row of rows) {
      if (work !== undefined && row.work !== work) continue;
      if (status !== undefined && row.level !== status) continue;
      if (needle !== "" && ![row.external_key, row.summary].some((f) => fold(f).includes(needle))) {
        continue;
      }
      hits.push({
        kind: "evidence",
        key: row.external_key,
        title: row.summary,
        status: row.level,
        work: row.work,
      });
    }
  }
  return { hits: hits.slice(0, limit), total: hits.length, truncated: hits.length > limit };
}
