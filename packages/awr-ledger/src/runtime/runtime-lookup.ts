import type { Kysely } from "kysely";
import type { RuntimeCaller } from "../core/runtime-context.js";
import type { SessionTable, WaitTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { type Param, PreparedQuery } from "../storage/prepared-query.js";
import type { EntityTable, LedgerSchema } from "../storage/schema.js";
import {
  activeBranchById,
  branchIdOf,
  MAIN,
  resolveActiveBranch,
  resolveBranch,
} from "./branch-select.js";

type Db = Kysely<LedgerSchema>;

const sessionByIdQuery = new PreparedQuery<{ id: string }, SessionTable>((db, $) =>
  db.selectFrom("sessions").selectAll().where("id", "=", $("id")),
);

type ConversationRef = { client: string; conversation: string };

/** The client's sessions bound to one conversation. */
const sessionsOfConversation = (db: Db, $: Param<ConversationRef>) =>
  db
    .selectFrom("sessions")
    .selectAll()
    .where("client", "=", $("client"))
    .where("conversation", "=", $("conversation"));

const newestSessionOfConversationQuery = new PreparedQuery<ConversationRef, SessionTable>((db, $) =>
  sessionsOfConversation(db, $).orderBy("start_revision", "desc").orderBy("id", "desc"),
);

const activeBindingQuery = new PreparedQuery<ConversationRef, SessionTable>((db, $) =>
  sessionsOfConversation(db, $).where("status", "=", "active"),
);

const pendingWaitQuery = new PreparedQuery<{ session: string }, WaitTable>((db, $) =>
  db
    .selectFrom("waits")
    .selectAll()
    .where("session", "=", $("session"))
    .where("status", "=", "waiting_user"),
);

/** A work item by its key, bare or with the projection's `work#` prefix. */
const workByKeyQuery = new PreparedQuery<{ key: string; prefixed: string }, EntityTable>((db, $) =>
  db
    .selectFrom("entities")
    .selectAll()
    .where("kind", "=", "work")
    .where("key", "in", [$("key"), $("prefixed")]),
);

/** Session addressing: `session` (its id) or `conversation` (bound per client). */
export interface SessionRef {
  session?: string | undefined;
  conversation?: string | undefined;
}

/** RuleViolation for a session, checkpoint, wait or claim of another client (never its content). */
export function otherClientError(what: string, id: string): LedgerError {
  return new LedgerError(
    "RuleViolation",
    `${what} ${id} belongs to another client; a client may act only on its own sessions, checkpoints, waits and claims`,
    { [what]: id },
    { next: "Use your own sessions, waits and claims (awr_session_list lists your sessions)." },
  );
}

/**
 * Finds the caller's session by id or by conversation (the newest session bound to that
 * conversation for this client). Another client's session is RuleViolation, and so is a session
 * id given with a conversation it is not bound to: the call would act
 * on one session in the name of another's conversation.
 */
export async function resolveSession(
  db: Db,
  caller: RuntimeCaller,
  ref: SessionRef,
): Promise<SessionTable> {
  if (ref.session === undefined && ref.conversation === undefined) {
    throw new LedgerError("InvalidInput", "give the session (its id) or your conversation", {
      field: "session",
    });
  }
  if (ref.session !== undefined) {
    const row = await sessionByIdQuery.first(db, { id: ref.session });
    if (row === undefined) {
      throw new LedgerError(
        "NotFound",
        `no session ${ref.session}; list yours with awr_session_list`,
        { session: ref.session },
      );
    }
    if (row.client !== caller.client) throw otherClientError("session", row.id);
    if (ref.conversation !== undefined && ref.conversation !== row.conversation) {
      throw new LedgerError(
        "RuleViolation",
        `session ${row.id} is not bound to conversation "${ref.conversation}"; give the session or the conversation, not both`,
        { session: row.id, conversation: ref.conversation },
      );
    }
    return row;
  }
  const row = await newestSessionOfConversationQuery.first(db, {
    client: caller.client,
    conversation: ref.conversation as string,
  });
  if (row === undefined) {
    throw new LedgerError(
      "NotFound",
      `no session is bound to conversation "${ref.conversation}" for this client; start one with awr_session_start`,
      { conversation: ref.conversation },
    );
  }
  return row;
}

/** The active session bound to (client, conversation), if any. */
export async function activeBinding(
  db: Db,
  client: string,
  conversation: string,
): Promise<SessionTable | undefined> {
  return activeBindingQuery.first(db, { client, conversation });
}

export async function pendingWait(db: Db, session: string): Promise<WaitTable | undefined> {
  return pendingWaitQuery.first(db, { session });
}

export function waitBlocksError(wait: WaitTable, what: string): LedgerError {
  return new LedgerError(
    "InvalidTransition",
    `${what} is refused while wait ${wait.id} is pending ("${wait.question}"); record the ` +
      "answer (or cancel it) with awr_session_reply first",
    { wait: wait.id, session: wait.session },
  );
}

/** A work item of the projection by its key (`INVOICE-001`, or `work#INVOICE-001`). */
export async function findWork(db: Db, ref: string): Promise<EntityTable | undefined> {
  return workByKeyQuery.first(db, { key: ref, prefixed: `work#${ref}` });
}

export async function requireWork(db: Db, ref: string): Promise<EntityTable> {
  const work = await findWork(db, ref);
  if (work === undefined) {
    throw new LedgerError(
      "NotFound",
      `no work item "${ref}" in the projection; check the id, or reindex if the source changed`,
      { work: ref },
    );
  }
  return work;
}

export function requireActive(session: SessionTable, what: string): void {
  if (session.status !== "active") {
    throw new LedgerError(
      "InvalidTransition",
      `${what} needs an active session; session ${session.id} is ${session.status}` +
        " (resume it with awr_session_resume)",
      { session: session.id, status: session.status },
    );
  }
}

/** The caller's session, refused unless it is active (`what` names the refused step). */
export async function resolveActiveSession(
  db: Db,
  caller: RuntimeCaller,
  ref: SessionRef,
  what: string,
): Promise<SessionTable> {
  const session = await resolveSession(db, caller, ref);
  requireActive(session, what);
  return session;
}

/**
 * What a recorded entry links to: the named work (which must exist) and the referenced session
 * (when one is referenced); without a named work, the session's work. The branch is the
 * session's (a named branch or work that differs from the session's is InvalidInput), else the
 * named one or the selected default; it must be active (docs/design/work-branches.md R6).
 */
export async function resolveLinks(
  db: Db,
  caller: RuntimeCaller,
  workRef: string | undefined,
  ref: SessionRef,
  branchRef?: string | null,
): Promise<{ work: string | null; session: string | null; branch: string | null }> {
  const hasSession = ref.session !== undefined || ref.conversation !== undefined;
  const work = workRef === undefined ? undefined : await requireWork(db, workRef);
  const session = hasSession ? await resolveSession(db, caller, ref) : undefined;
  if (session === undefined) {
    const branch = branchIdOf(await resolveActiveBranch(db, branchRef));
    return { work: work?.key ?? null, session: null, branch };
  }
  // Bound to a session: the event is on the session's branch and work (R6).
  if (work !== undefined && session.work !== null && work.key !== session.work) {
    throw new LedgerError(
      "InvalidInput",
      `event work conflicts with its session binding: session ${session.id} is on work ${session.work}, not ${work.key}; omit work or name the session's`,
      { work: work.key, session: session.id, session_work: session.work },
    );
  }
  const sessionBranch = session.branch ?? null;
  if (branchRef !== undefined && branchRef !== null) {
    const named = branchIdOf(await resolveBranch(db, branchRef));
    if (named !== sessionBranch) {
      throw new LedgerError(
        "InvalidInput",
        `event branch conflicts with its session binding: session ${session.id} is on ${sessionBranch ?? MAIN}; omit branch or name the session's`,
        { branch: branchRef, session: session.id, session_branch_id: sessionBranch },
      );
    }
  }
  await activeBranchById(db, sessionBranch);
  return { work: work?.key ?? session.work ?? null, session: session.id, branch: sessionBranch };
}
