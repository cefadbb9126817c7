import type { Kysely } from "kysely";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { type EntityView, tableExists } from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import { projectionAt } from "../read/projection-cache.js";
import { STATUS_SUMMARY } from "../read/status-summary.js";
import { resolveSession } from "../runtime/runtime-lookup.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { SelectionBasis } from "./context-types.js";

export interface SelectionInput {
  work?: string | undefined;
  session?: string | undefined;
  conversation?: string | undefined;
  detached?: boolean | undefined;
  agent?: string | undefined;
}

export interface Selection {
  work: EntityView | null;
  /** The key asked for or found, for reports; "(unresolved work)" when none. */
  work_key: string;
  session: SessionTable | null;
  basis: SelectionBasis;
}

function findWork(projection: Projection, key: string): EntityView | null {
  const entity = projection.entity(key);
  return entity?.kind === "work" ? entity : null;
}

/**
 * Which work item and session a context request is about. An explicit work key is never
 * replaced by another item: when it is not in the ledger the basis is explicit_work_missing.
 * Without one, the session's work is used; without a session, the one current (claimed or
 * in-progress) item, and an InvalidInput naming them when there are several. Work items are
 * read from the projection as of `revision` (read/projection-cache.ts).
 *
 * With `active` (L1), a request that names no session and is not detached uses the caller's one
 * active session on that branch of the given work (any work when none is given) and agent;
 * several are InvalidInput (docs/compatibility/context.md).
 */
export async function selectContext(
  db: Kysely<LedgerSchema>,
  revision: number,
  input: SelectionInput,
  client: string,
  active?: { branch: string | null },
): Promise<Selection> {
  const bySession = input.session !== undefined || input.conversation !== undefined;
  if (input.detached === true && (bySession || input.work === undefined)) {
    throw new LedgerError(
      "InvalidInput",
      "detached context needs an explicit work item and no session: give work and drop session/conversation.",
      { field: "detached" },
    );
  }
  for (const [field, value] of Object.entries({ work: input.work, agent: input.agent })) {
    if (value !== undefined && value.trim() === "") {
      throw new LedgerError("InvalidInput", `${field} must not be blank.`, { field });
    }
  }
  const projection = await projectionAt(db, revision);
  if (input.work !== undefined) {
    const work = findWork(projection, input.work);
    if (work === null) {
      return { work: null, work_key: input.work, session: null, basis: "explicit_work_missing" };
    }
    const session = bySession
      ? await sessionOf(db, input, client)
      : active !== undefined && input.detached !== true
        ? await activeSession(db, client, { ...active, work: work.key, agent: input.agent })
        : null;
    if (session !== null && session.work !== work.key) {
      throw new LedgerError(
        "InvalidInput",
        `session ${session.id} is bound to ${session.work ?? "no work item"}, not ${work.key}: give the matching session or drop work.`,
        { session: session.id, work: work.key },
      );
    }
    return {
      work,
      work_key: work.key,
      session,
      basis: input.detached === true ? "explicit_work_detached_session" : "explicit_work",
    };
  }
  const implicit =
    !bySession && active !== undefined
      ? await activeSession(db, client, { ...active, work: undefined, agent: input.agent })
      : null;
  if (bySession || implicit !== null) {
    const session = implicit ?? (await sessionOf(db, input, client));
    const work = session.work === null ? null : findWork(projection, session.work);
    return {
      work,
      work_key: session.work ?? "(unresolved work)",
      session,
      basis: work !== null ? "session" : "session_work_retired",
    };
  }
  // Claimed or in progress by status: the status summary keeps that list (status-summary.ts).
  const current = projection
    .derive(STATUS_SUMMARY)
    .current.map((entry) => entry.work)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (current.length > 1) {
    throw new LedgerError(
      "InvalidInput",
      `Several work items are current (${current.map((w) => w.key).join(", ")}); give work to choose one.`,
      { field: "work" },
    );
  }
  const only = current[0];
  return only === undefined
    ? { work: null, work_key: "(unresolved work)", session: null, basis: "none" }
    : { work: only, work_key: only.key, session: null, basis: "source_current" };
}

/**
 * The caller's one active session matching work, agent and branch (`branch` undefined: on any
 * branch); null when there is none.
 */
export async function activeSession(
  db: Kysely<LedgerSchema>,
  client: string,
  of: { branch?: string | null; work: string | undefined; agent: string | undefined },
): Promise<SessionTable | null> {
  if (!(await tableExists(db, "sessions"))) return null;
  let query = db
    .selectFrom("sessions")
    .selectAll()
    .where("client", "=", client)
    .where("status", "=", "active");
  if (of.branch !== undefined) {
    query = query.where("branch", of.branch === null ? "is" : "=", of.branch);
  }
  if (of.work !== undefined) query = query.where("work", "=", of.work);
  if (of.agent !== undefined) query = query.where("agent", "=", of.agent);
  const rows = await query.orderBy("id").limit(2).execute();
  if (rows.length > 1) {
    throw new LedgerError(
      "InvalidInput",
      `Several active sessions match (${rows.map((r) => r.id).join(", ")}); give session or conversation to choose one.`,
      { field: "session", sessions: rows.map((r) => r.id) },
    );
  }
  return rows[0] ?? null;
}

async function sessionOf(
  db: Kysely<LedgerSchema>,
  input: SelectionInput,
  client: string,
): Promise<SessionTable> {
  if (!(await tableExists(db, "sessions"))) {
    throw new LedgerError(
      "NotFound",
      "No sessions exist in this ledger yet; start one with awr_session_start.",
    );
  }
  const session = await resolveSession(
    db,
    { client },
    { session: input.session, conversation: input.conversation },
  );
  if (input.agent !== undefined && input.agent !== session.agent) {
    throw new LedgerError(
      "InvalidInput",
      `session ${session.id} belongs to agent ${session.agent}, not ${input.agent}: give the matching agent or drop it.`,
      { session: session.id },
    );
  }
  return session;
}
