import type { Kysely, RawBuilder, SqlBool } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { RuntimeCaller } from "../core/runtime-context.js";
import type { CheckpointTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { sql } from "../internal/kysely.js";
import type { EventTable, LedgerSchema } from "../storage/schema.js";
import { otherClientError } from "./runtime-lookup.js";

/**
 * The per-client privacy rule (docs/design/conversation-privacy.md), in one place: what a client
 * writes into its sessions (conversation ids, checkpoint digests, next actions and open loops,
 * wait questions and replies) is that client's alone. Project state (work transitions, claims
 * with their holder, evidence, free-form events) stays shared.
 *
 * Events are where session text reaches shared reads, so the rule is stated per event type: the
 * types below carry session text in their summary or payload. Another client sees such an event
 * with a neutral summary and an empty payload (lists: context packets, workstream events), and
 * never finds it by its text (search). An event with no recorded client (a ledger written
 * before clients were recorded) has no owner to protect and is shown as it is.
 */
const NEUTRAL_SUMMARY: Readonly<Record<string, string>> = {
  [DOMAIN_EVENT_TYPES.sessionStarted]: "session started",
  [DOMAIN_EVENT_TYPES.sessionResumed]: "session resumed",
  [DOMAIN_EVENT_TYPES.sessionEnded]: "session ended",
  [DOMAIN_EVENT_TYPES.checkpointCreated]: "checkpoint recorded",
  [DOMAIN_EVENT_TYPES.waitCreated]: "question recorded for the user",
  [DOMAIN_EVENT_TYPES.waitReplied]: "wait replied to",
  "session.resumed_from": "session resumed",
  "session.handoff_received": "session handed off",
  "session.interrupted": "session interrupted",
};

/** The event types whose summary and payload are conversation content. */
export const CONVERSATION_EVENT_TYPES: readonly string[] = Object.keys(NEUTRAL_SUMMARY);

type EventText = Pick<EventTable, "type" | "client" | "summary" | "payload">;

/** Whether `client` may read this event's summary and payload. */
export function eventTextVisible(event: Pick<EventTable, "type" | "client">, client: string) {
  return event.client === null || event.client === client || !(event.type in NEUTRAL_SUMMARY);
}

/** The event as `client` may see it: another client's conversation text replaced. */
export function eventSeenBy<T extends EventText>(event: T, client: string): T {
  if (eventTextVisible(event, client)) return event;
  return { ...event, summary: NEUTRAL_SUMMARY[event.type] ?? null, payload: "{}" };
}

/**
 * SQL condition (for a search over event text): the events whose text `client` may match. The
 * columns are those of `events`, under `alias` when one is given.
 */
export function eventTextVisibleSql(client: string, alias?: string): RawBuilder<SqlBool> {
  const column = (name: string) => sql.ref(alias === undefined ? name : `${alias}.${name}`);
  const types = sql.join(CONVERSATION_EVENT_TYPES.map((type) => sql`${type}`));
  return sql<SqlBool>`(${column("type")} NOT IN (${types}) OR ${column("client")} IS NULL OR ${column("client")} = ${client})`;
}

/**
 * One of the caller's checkpoints by id: NotFound when there is none, RuleViolation when it was
 * recorded by another client's session.
 */
export async function ownCheckpoint(
  db: Kysely<LedgerSchema>,
  caller: RuntimeCaller,
  id: string,
): Promise<CheckpointTable> {
  const found = await db
    .selectFrom("checkpoints")
    .innerJoin("sessions", "sessions.id", "checkpoints.session")
    .selectAll("checkpoints")
    .select("sessions.client as client")
    .where("checkpoints.id", "=", id)
    .executeTakeFirst();
  if (found === undefined) {
    throw new LedgerError(
      "NotFound",
      `no checkpoint ${id}; awr_session_get lists your session's checkpoint`,
      { checkpoint: id },
    );
  }
  const { client, ...checkpoint } = found;
  if (client !== caller.client) throw otherClientError("checkpoint", id);
  return checkpoint;
}
