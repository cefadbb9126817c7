import { z } from "zod";
import {
  id,
  label,
  limit,
  list,
  revision,
  SESSION_END_STATUSES,
  SESSION_STATUSES,
  sessionAddress,
  text,
  ttlMs,
} from "./fields.js";
import type { ProjectToolDefinition } from "./tool-definition.js";

const ADDRESS =
  "Address the session by `session` id or by your `conversation`; NotFound means no such session for this client.";

export const SESSION_TOOLS: readonly ProjectToolDefinition[] = [
  {
    name: "awr_session_start",
    title: "Start session",
    kind: "write",
    method: "sessionStart",
    description:
      "Binds your conversation to one work item as a durable session (it survives disconnects and restarts), optionally claiming the work. Call it once per conversation before working; calling again with the same binding returns binding_reused: true and spends nothing. Errors: ClaimConflict (another session holds the work: pick other work), SourceConflict (this conversation is bound to something else: use another conversation id or resume), RevisionConflict (read again).",
    shape: {
      work: id("Work item key."),
      conversation: id("Your host's stable conversation id (not a connection id)."),
      agent: label("Agent name."),
      provider: label("Model provider."),
      model: label("Model name."),
      claim: z.boolean().describe("Also claim the work for this session.").optional(),
      ttl_ms: ttlMs().optional(),
    },
  },
  {
    name: "awr_session_get",
    title: "Session",
    kind: "read",
    method: "sessionGet",
    description: `One of your sessions: status, work, claim, latest checkpoint and pending wait. Call it after a reply or a restart to see where you were. ${ADDRESS}`,
    shape: { ...sessionAddress },
  },
  {
    name: "awr_session_list",
    title: "Sessions",
    kind: "read",
    method: "sessionList",
    description:
      "This client's sessions, newest first. Page with before_revision (the start revision of the last session you saw).",
    shape: {
      limit: limit().optional(),
      before_revision: revision("Only sessions started before this revision.").optional(),
      status: z.enum(SESSION_STATUSES).describe("Only sessions with this status.").optional(),
    },
  },
  {
    name: "awr_session_checkpoint",
    title: "Checkpoint",
    kind: "write",
    method: "sessionCheckpoint",
    description: `Saves where you are (digest, next action, open loops, changed entities) so you or a successor can continue after a context reset. Call it at natural pauses and before ending a turn. ${ADDRESS} RevisionConflict: read again.`,
    shape: {
      ...sessionAddress,
      digest: text("Compact summary of progress so far."),
      next_action: text("The next concrete step.").optional(),
      open_loops: list("Unfinished threads.").optional(),
      changed_entities: list("Keys of entities you changed.").optional(),
      context_hash: z
        .string()
        .max(256)
        .describe("context_hash of the packet you worked from.")
        .optional(),
    },
  },
  {
    name: "awr_session_claim",
    title: "Claim or release",
    kind: "write",
    method: "sessionClaim",
    description: `Acquires or releases your session's claim on a work item (at most one active claim per item). ClaimConflict names the holder: choose other work or wait for its claim to expire. ${ADDRESS}`,
    shape: {
      ...sessionAddress,
      action: z.enum(["acquire", "release"]).describe("acquire | release"),
      work: id("Work item key (defaults to the session's work).").optional(),
      ttl_ms: ttlMs().optional(),
    },
  },
  {
    name: "awr_session_end",
    title: "End session",
    kind: "write",
    method: "sessionEnd",
    description: `Ends your session as ended, interrupted or incomplete and releases its claims. Call it when the conversation is done with the work; a disconnect never ends a session by itself. ${ADDRESS}`,
    shape: {
      ...sessionAddress,
      status: z.enum(SESSION_END_STATUSES).describe("ended | interrupted | incomplete"),
      summary: text("What happened.").optional(),
    },
  },
  {
    name: "awr_session_resume",
    title: "Resume session",
    kind: "write",
    method: "sessionResume",
    description: `Creates a successor of a session that inherits its latest checkpoint and claim, for a new conversation continuing old work. Refused with InvalidTransition while a wait is pending: get the reply first. ${ADDRESS}`,
    shape: {
      ...sessionAddress,
      new_conversation: id("Conversation id for the successor.").optional(),
      agent: label("Agent name of the successor.").optional(),
      provider: label("Model provider of the successor.").optional(),
      model: label("Model name of the successor.").optional(),
    },
  },
  {
    name: "awr_session_wait",
    title: "Ask and wait",
    kind: "write",
    method: "sessionWait",
    description: `Checkpoints the session and records one pending question for the user. While it is pending, transitions of the session's work and its resume are refused. Call it when you need a human decision; then end your turn. InvalidTransition: a wait is already pending. ${ADDRESS}`,
    shape: {
      ...sessionAddress,
      question: z.string().min(1).max(65_536).describe("The question for the user."),
      digest: text("Compact summary of progress so far."),
      next_action: text("What you will do once answered.").optional(),
      open_loops: list("Unfinished threads.").optional(),
    },
  },
  {
    name: "awr_session_reply",
    title: "Answer a wait",
    kind: "write",
    method: "sessionReply",
    description: `Answers (answer) or cancels (cancel: true) a pending wait; give exactly one. It only lifts the block: it changes no work state and schedules nothing, so afterwards inspect the session, compile fresh context and decide. NotFound: no pending wait. ${ADDRESS}`,
    shape: {
      ...sessionAddress,
      wait: id("Wait id (defaults to the session's pending wait).").optional(),
      answer: text("The user's answer.").optional(),
      cancel: z.boolean().describe("Cancel the wait instead of answering.").optional(),
    },
  },
];
