import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import type { LedgerSchema } from "../storage/schema.js";
import { runCheckedWrite } from "./checked-write.js";
import { asFields, optText } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { inheritClaims, planClaimInheritance } from "./resume-claims.js";
import { activeBinding, pendingWait, resolveSession, waitBlocksError } from "./runtime-lookup.js";
import { type ClaimView, claimView, type SessionView, sessionView } from "./runtime-views.js";

export interface SessionResumeInput {
  /** The predecessor, by id or conversation. */
  session?: string;
  conversation?: string;
  /** The successor's conversation; defaults to the predecessor's. */
  new_conversation?: string;
  agent?: string;
  provider?: string;
  model?: string;
  expected_revision: number;
  request_id?: string;
}

export interface SessionResumeResult {
  session: SessionView;
  predecessor: SessionView;
  /**
   * Claims carried over from the predecessor, each re-issued to the successor: the claims it
   * still held, or else the claim on its work that its end released (see resume-claims.ts).
   */
  claims: ClaimView[];
}

/**
 * awr_session_resume: creates a successor session that inherits the predecessor's work, last
 * checkpoint and claim. Claims the predecessor still holds are transferred; when it holds none
 * because ending it released them, the claim it held last on its work is taken again for the
 * successor, unless another session holds that work now (ClaimConflict naming the holder, and
 * nothing changes). An active predecessor becomes `interrupted`. Refused while the predecessor
 * has a pending wait, and for a predecessor that already has a successor.
 */
export async function sessionResume(
  ctx: RuntimeContext,
  input: SessionResumeInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionResumeResult & WriteReceipt> {
  const fields = asFields(input, [
    ...SESSION_REF_FIELDS,
    "new_conversation",
    "agent",
    "provider",
    "model",
    ...WRITE_FIELDS,
  ]);
  const write = readWriteFields(fields);
  const ref = readSessionRef(fields);
  const newConversation = optText(fields, "new_conversation", { max: 256 });
  const agent = optText(fields, "agent", { max: 256 });
  const provider = optText(fields, "provider", { max: 256 });
  const model = optText(fields, "model", { max: 256 });

  const check = async (db: Kysely<LedgerSchema>, nowMs: number) => {
    const predecessor = await resolveSession(db, caller, ref);
    const wait = await pendingWait(db, predecessor.id);
    if (wait !== undefined) throw waitBlocksError(wait, `resuming session ${predecessor.id}`);
    if (predecessor.successor !== null) {
      throw new LedgerError(
        "InvalidTransition",
        `session ${predecessor.id} was already resumed by session ${predecessor.successor}; resume that one instead`,
        { session: predecessor.id, successor: predecessor.successor },
      );
    }
    const conversation = newConversation ?? predecessor.conversation;
    const bound = await activeBinding(db, caller.client, conversation);
    if (bound !== undefined && bound.id !== predecessor.id) {
      throw new LedgerError(
        "SourceConflict",
        `conversation "${conversation}" is already bound to active session ${bound.id}`,
        { conversation, session: bound.id },
      );
    }
    const inheritance = await planClaimInheritance(db, predecessor, nowMs);
    return { predecessor, conversation, inheritance };
  };

  return runCheckedWrite(
    ctx,
    {
      tool: "awr_session_resume",
      input: fields,
      write,
      caller,
      check,
      apply: async (unit, { predecessor, conversation, inheritance }) => {
        const successor: SessionTable = {
          id: ulid(),
          client: caller.client,
          conversation,
          work: predecessor.work,
          agent: agent ?? predecessor.agent,
          provider: provider ?? predecessor.provider,
          model: model ?? predecessor.model,
          status: "active",
          predecessor: predecessor.id,
          successor: null,
          summary: null,
          last_checkpoint: predecessor.last_checkpoint,
          start_revision: unit.revision,
          end_revision: null,
          started_at: unit.time,
          ended_at: null,
        };
        const wasActive = predecessor.status === "active";
        const closed: SessionTable = {
          ...predecessor,
          successor: successor.id,
          ...(wasActive
            ? { status: "interrupted", end_revision: unit.revision, ended_at: unit.time }
            : {}),
        };
        // The predecessor leaves the binding before the successor takes it.
        await unit.tx
          .updateTable("sessions")
          .set({
            successor: successor.id,
            status: closed.status,
            end_revision: closed.end_revision,
            ended_at: closed.ended_at,
          })
          .where("id", "=", predecessor.id)
          .execute();
        await unit.tx.insertInto("sessions").values(successor).execute();
        const inherited = await inheritClaims(unit, predecessor, successor, inheritance);
        return {
          result: {
            session: sessionView(successor),
            predecessor: sessionView(closed),
            claims: inherited.map(claimView),
          },
          event: {
            type: DOMAIN_EVENT_TYPES.sessionResumed,
            work: successor.work,
            session: successor.id,
            summary: `session ${successor.id} resumes ${predecessor.id}`,
            payload: {
              predecessor: predecessor.id,
              checkpoint: successor.last_checkpoint,
              conversation,
              claims: inherited.map((c) => c.id),
            },
          },
        };
      },
    },
    options,
  );
}
