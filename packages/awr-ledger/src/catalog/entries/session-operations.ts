import { LIMITS } from "../../core/limits.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import type { SessionCheckpointInput } from "../../sessions/session-checkpoint.js";
import type { SessionClaimInput } from "../../sessions/session-claim.js";
import type { SessionEndInput } from "../../sessions/session-end.js";
import type { SessionGetInput, SessionListInput } from "../../sessions/session-read.js";
import type { SessionReplyInput } from "../../sessions/session-reply.js";
import type { SessionStartInput } from "../../sessions/session-start.js";
import type { SessionWaitInput } from "../../sessions/session-wait.js";
import {
  about,
  branch,
  choice,
  id,
  type JsonSchema,
  limit,
  nullable,
  object,
  revision,
  SESSION_SELECTOR,
  strings,
  text,
  ttlMs,
} from "../json-schema.js";
import { operation } from "../operation.js";
import { conversationId, expectedRevision, identityFields, sessionId } from "../shared-fields.js";

/** The session selector: `session` or `conversation`, and one is required. */
const selector = (properties: Record<string, JsonSchema>, required: string[] = []) =>
  object(
    { ...properties, session: nullable(sessionId()), conversation: nullable(conversationId()) },
    required,
    SESSION_SELECTOR,
  );

/** What a checkpoint (or a wait's) saves (docs/compatibility/runtime.md). */
const contextHash = () => about("context_hash of the packet you used.", id());
const digest = () => about("Where you stand, briefly.", text());
const nextAction = () => about("Your next concrete step.", text());
const openLoops = () => about("Unfinished threads.", strings());

/** A CLI command addressing a session by operand, `--session` or `--conversation`. */
const addressed = (path: string[], summary: string) => ({
  path,
  summary,
  operands: [{ field: "session", name: "SESSION", optional: true }],
});

export const sessionStartOperation = operation({
  tool: "awr_session_start",
  kind: "write",
  freshness: "runtime",
  description:
    "Binds your host conversation to a work item as a durable session (it survives disconnects and restarts), optionally claiming it. The same binding again returns binding_reused: true and spends nothing. ClaimConflict: pick other work; SourceConflict: the conversation is bound elsewhere or to another agent identity.",
  input: object(
    {
      work: about("Work item key.", id()),
      conversation: conversationId(),
      ...identityFields(),
      expected_revision: expectedRevision(),
      claim: about("Also claim the work.", { type: "boolean", default: false }),
      ttl_ms: ttlMs(),
      branch: branch(),
    },
    ["work", "conversation", "agent", "provider", "model", "expected_revision"],
  ),
  run: async (host, input: SessionStartInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-start.js"))).sessionStart(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["session", "start"],
      summary: "start a session on a work item (the same binding again is reused)",
      operands: [{ field: "work", name: "WORK", optional: true }],
      generated: ["conversation"],
    },
  ],
});

export const sessionGetOperation = operation({
  tool: "awr_session_get",
  kind: "read",
  freshness: "runtime",
  description:
    "One of your sessions: status, claims (expired ones marked), checkpoint, inherited checkpoint, waits with their replies. Works while sources are stale. Another client's session is RuleViolation.",
  input: selector({}),
  run: async (host, input: SessionGetInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-read.js"))).sessionGet(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [addressed(["session", "show"], "one session: work, status, claims, checkpoints, waits")],
});

export const sessionListOperation = operation({
  tool: "awr_session_list",
  kind: "read",
  freshness: "runtime",
  description:
    "Your sessions, newest first; page with before_revision = next_before_revision. Connections are not sessions.",
  input: object({
    limit: limit(),
    before_revision: about("Page: the last next_before_revision.", nullable(revision())),
  }),
  run: async (host, input: SessionListInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-read.js"))).sessionList(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [{ path: ["session", "list"], summary: "this client's sessions, newest first" }],
});

export const sessionCheckpointOperation = operation({
  tool: "awr_session_checkpoint",
  kind: "write",
  freshness: "runtime",
  description:
    "Saves where you are: digest, next action, open loops and the context_hash of the packet you last used (never invent one), so you or a successor can continue after a reset.",
  input: selector(
    {
      expected_revision: expectedRevision(),
      context_hash: contextHash(),
      digest: digest(),
      next_action: nextAction(),
      open_loops: openLoops(),
      changed_entities: about("Keys you changed since.", strings()),
    },
    ["expected_revision", "context_hash", "digest", "next_action"],
  ),
  run: async (host, input: SessionCheckpointInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-checkpoint.js"))).sessionCheckpoint(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      ...addressed(["session", "checkpoint"], "record where the session stands"),
      flags: { open_loops: "--open-loop", changed_entities: "--changed-entity" },
    },
  ],
});

export const sessionEndOperation = operation({
  tool: "awr_session_end",
  kind: "write",
  freshness: "runtime",
  description:
    "Ends your session (outcome ended, interrupted or incomplete) and releases its claims. A disconnect never ends a session. Works while sources are stale.",
  input: selector(
    {
      expected_revision: expectedRevision(),
      outcome: about("How it ended.", choice(["ended", "interrupted", "incomplete"])),
    },
    ["expected_revision", "outcome"],
  ),
  run: async (host, input: SessionEndInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-end.js"))).sessionEnd(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      ...addressed(["session", "end"], "end the session and release its claims"),
      defaults: { outcome: "ended" },
    },
  ],
});

export const sessionClaimOperation = operation({
  tool: "awr_session_claim",
  kind: "write",
  freshness: "runtime",
  description:
    "Acquires (or renews, with ttl_ms) your session's claim on its work item, or releases one of its claims (claim = its id). At most one claim per item; ClaimConflict names the holder.",
  input: selector(
    {
      action: about("acquire or release a claim.", choice(["acquire", "release"])),
      expected_revision: expectedRevision(),
      claim: about("release: the claim id.", nullable(id())),
      ttl_ms: ttlMs(),
    },
    ["action", "expected_revision"],
  ),
  run: async (host, input: SessionClaimInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-claim.js"))).sessionClaim(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      ...addressed(
        ["session", "claim"],
        "claim the session's work item (at most one claim per item)",
      ),
      fixed: { action: "acquire" },
      flags: { claim: null },
    },
    {
      ...addressed(["session", "release"], "release a claim of the session"),
      fixed: { action: "release" },
      flags: { ttl_ms: null },
    },
  ],
});

export const sessionWaitOperation = operation({
  tool: "awr_session_wait",
  kind: "write",
  freshness: "runtime",
  description:
    "Checkpoints your session and records one question for the user; transitions of its work and its resume are refused until a reply. The host asks the user; AWR starts no turn. One pending wait per session.",
  input: selector(
    {
      expected_revision: expectedRevision(),
      question: about("The question for the user.", {
        type: "string",
        minLength: 1,
        maxLength: LIMITS.questionBytes,
      }),
      context_hash: contextHash(),
      digest: digest(),
      next_action: nextAction(),
      open_loops: openLoops(),
    },
    ["expected_revision", "question", "context_hash", "digest", "next_action"],
  ),
  run: async (host, input: SessionWaitInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-wait.js"))).sessionWait(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      ...addressed(["session", "wait"], "checkpoint and ask the user a question"),
      flags: { open_loops: "--open-loop" },
    },
  ],
});

export const sessionReplyOperation = operation({
  tool: "awr_session_reply",
  kind: "write",
  freshness: "runtime",
  description:
    "Records the user's reply to a wait, identified by its id (or, with cancel: true, why it is cancelled). It only lifts the block: read the session and compile context before continuing. Another client's wait is RuleViolation.",
  input: object(
    {
      wait: about("The wait id.", id()),
      expected_revision: expectedRevision(),
      reply: about("The user's answer.", { ...text(), minLength: 1 }),
      cancel: about("Cancel the wait instead.", { type: "boolean", default: false }),
    },
    ["wait", "expected_revision", "reply"],
  ),
  run: async (host, input: SessionReplyInput, caller, options) =>
    (await loadInOrder(() => import("../../sessions/session-reply.js"))).sessionReply(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["session", "reply"],
      summary: "answer (or --cancel) a pending question by its wait id",
      operands: [{ field: "wait", name: "WAIT" }],
    },
  ],
});
