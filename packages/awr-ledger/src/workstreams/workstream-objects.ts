import type { Kysely } from "kysely";
import type { CheckpointTable, SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { toView } from "../read/entity-view.js";
import { eventSeenBy } from "../runtime/conversation-privacy.js";
import { otherClientError } from "../runtime/runtime-lookup.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";
import { accessDenied, type ResolvedScope } from "./workstream-access.js";
import type { WorkstreamArgs } from "./workstream-capabilities.js";
import type { Visibility } from "./workstream-visibility.js";

export const OBJECT_KINDS = ["work", "session", "checkpoint", "artifact", "evidence", "event"];

/**
 * An event as workstream readers see it: metadata and summary, never the payload; another
 * client's conversation text replaced.
 */
export function eventItem(event: EventTable, client: string) {
  const row = eventSeenBy(event, client);
  return {
    id: row.id,
    seq: Number(row.seq),
    revision: Number(row.revision),
    type: row.type,
    work: row.work,
    session_id: row.session,
    client: row.client,
    summary: row.summary,
    time: row.time,
  };
}

function checkpointItem(row: CheckpointTable) {
  return {
    ...row,
    revision: Number(row.revision),
    open_loops: JSON.parse(row.open_loops) as string[],
    changed_entities: JSON.parse(row.changed_entities) as string[],
  };
}

function sessionItem(row: SessionTable) {
  return {
    ...row,
    start_revision: Number(row.start_revision),
    end_revision: row.end_revision === null ? null : Number(row.end_revision),
  };
}

/**
 * A session in the workstream's scope and the reader's own: another client's is RuleViolation
 * naming `via` (the session, or the checkpoint asked for).
 */
async function visibleSession(
  db: Kysely<LedgerSchema>,
  visible: Visibility,
  id: string,
  via: [what: string, reference: string] = ["session", id],
) {
  if (!(await visible.sessions()).has(id)) throw accessDenied();
  const row = await db
    .selectFrom("sessions")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  if (row.client !== visible.client) throw otherClientError(...via);
  return row;
}

async function latestCheckpoint(db: Kysely<LedgerSchema>, session: string) {
  const row = await db
    .selectFrom("checkpoints")
    .selectAll()
    .where("session", "=", session)
    .orderBy("revision", "desc")
    .executeTakeFirst();
  return row === undefined ? null : checkpointItem(row);
}

/**
 * awr_workstream object `{kind, reference}`: one visible object. A work item or evidence by
 * key (evidence also by id); a session, checkpoint or event by id. Missing and hidden objects
 * both answer WorkstreamAccessDenied; this build records no artifacts, so none is visible.
 */
export async function readObject(
  db: Kysely<LedgerSchema>,
  visible: Visibility,
  args: WorkstreamArgs,
): Promise<Record<string, unknown>> {
  const kind = args["kind"] as string;
  const reference = args["reference"] as string;
  switch (kind) {
    case "work": {
      if (!visible.work.has(reference)) throw accessDenied();
      const row = await db
        .selectFrom("entities")
        .selectAll()
        .where("kind", "=", "work")
        .where("key", "=", reference)
        .executeTakeFirstOrThrow();
      return { ...toView(row), workstream_id: visible.stream.id };
    }
    case "session":
      return sessionItem(await visibleSession(db, visible, reference));
    case "checkpoint": {
      const row = await db
        .selectFrom("checkpoints")
        .selectAll()
        .where("id", "=", reference)
        .executeTakeFirst();
      if (row === undefined) throw accessDenied();
      await visibleSession(db, visible, row.session, ["checkpoint", reference]);
      return checkpointItem(row);
    }
    case "evidence": {
      const row = await db
        .selectFrom("evidence")
        .selectAll()
        .where((eb) => eb.or([eb("external_key", "=", reference), eb("id", "=", reference)]))
        .executeTakeFirst();
      if (row === undefined || row.work === null || !visible.work.has(row.work)) {
        throw accessDenied();
      }
      return { ...row, scope: JSON.parse(row.scope) as string[] };
    }
    case "event": {
      const row = await db
        .selectFrom("events")
        .selectAll()
        .where("id", "=", reference)
        .executeTakeFirst();
      const sessions = await visible.sessions();
      const seen =
        row !== undefined &&
        ((row.work !== null && visible.work.has(row.work)) ||
          (row.session !== null && sessions.has(row.session)));
      if (!seen) throw accessDenied();
      return eventItem(row as EventTable, visible.client);
    }
    case "artifact":
      throw accessDenied();
    default:
      throw new LedgerError(
        "Unsupported",
        `object kind ${JSON.stringify(kind)} is not readable through awr_workstream (kinds: ${OBJECT_KINDS.join(", ")}).`,
        { field: "kind" },
      );
  }
}

/**
 * awr_workstream recovery (selectors only): for a session, that session and its latest
 * checkpoint; otherwise up to two resume candidates, the reader's newest visible sessions without a
 * successor (of the selected work item, when one is bound), each with its latest checkpoint.
 */
export async function readRecovery(
  db: Kysely<LedgerSchema>,
  scope: ResolvedScope,
  visible: Visibility,
): Promise<Record<string, unknown>> {
  if (scope.session !== null) {
    const session = await visibleSession(db, visible, scope.session);
    return { session: sessionItem(session), checkpoint: await latestCheckpoint(db, session.id) };
  }
  let query = db
    .selectFrom("sessions as s")
    .innerJoin("workstream_ownership as o", "o.work", "s.work")
    .selectAll("s")
    .where("o.workstream_id", "=", visible.stream.id)
    .where("s.client", "=", visible.client)
    .where("s.successor", "is", null);
  if (scope.work !== null) query = query.where("s.work", "=", scope.work);
  const rows = await query
    .orderBy("s.start_revision", "desc")
    .orderBy("s.id", "desc")
    .limit(2)
    .execute();
  const candidates = [];
  for (const row of rows) {
    candidates.push({ ...sessionItem(row), checkpoint: await latestCheckpoint(db, row.id) });
  }
  return { candidates };
}
