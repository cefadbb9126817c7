import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { ResolvedScope } from "./workstream-access.js";
import type { WorkstreamArgs } from "./workstream-capabilities.js";
import { bindCursor, openCursor } from "./workstream-cursor.js";
import { eventItem } from "./workstream-objects.js";
import type { Visibility } from "./workstream-visibility.js";

/**
 * awr_workstream events `{after_revision?, cursor?, limit?}`: the workstream's events in order
 * (those of its work items and of their sessions; unattributed project events are withheld),
 * after `after_revision`, a page at a time (limit 1..100, default 10), metadata only; another
 * client's conversation text is replaced (docs/design/conversation-privacy.md).
 */
export async function readEvents(
  db: Kysely<LedgerSchema>,
  scope: ResolvedScope,
  visible: Visibility,
  args: WorkstreamArgs,
): Promise<Record<string, unknown>> {
  const afterRevision = (args["after_revision"] as number | undefined) ?? 0;
  const limit = (args["limit"] as number | undefined) ?? LIMITS.limit.default;
  const cursor = openCursor(args["cursor"], scope.binding);
  const afterSeq = cursor === undefined ? 0 : cursor["after_seq"];
  if (typeof afterSeq !== "number" || !Number.isSafeInteger(afterSeq) || afterSeq < 0) {
    throw new LedgerError(
      "InvalidInput",
      "cursor is not an events cursor; pass next_cursor back unchanged.",
      {
        field: "cursor",
      },
    );
  }
  const stream = scope.stream.id;
  const rows = await db
    .selectFrom("events as e")
    .selectAll("e")
    .where("e.revision", ">", afterRevision)
    .where("e.seq", ">", afterSeq)
    .where((eb) =>
      eb.or([
        eb(
          "e.work",
          "in",
          eb.selectFrom("workstream_ownership").select("work").where("workstream_id", "=", stream),
        ),
        eb(
          "e.session",
          "in",
          eb
            .selectFrom("sessions as s")
            .innerJoin("workstream_ownership as o", "o.work", "s.work")
            .select("s.id")
            .where("o.workstream_id", "=", stream),
        ),
      ]),
    )
    .orderBy("e.seq")
    .limit(limit + 1)
    .execute();
  const events = rows.slice(0, limit).map((row) => eventItem(row, visible.client));
  const hasMore = rows.length > limit;
  const last = events.at(-1);
  return {
    page: { events, has_more: hasMore },
    next_cursor: bindCursor(
      scope.binding,
      hasMore && last !== undefined
        ? { version: 1, project_id: scope.stream.project_id, after_seq: last.seq }
        : null,
    ),
  };
}
