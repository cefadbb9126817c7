import { about, id, type JsonSchema, nullable, revision } from "./json-schema.js";
import { LIMITS } from "./limits.js";

/** A full source revision SHA (40 hex digits, or 64 for SHA-256 repositories). */
export const sha = (): JsonSchema => ({
  type: "string",
  pattern: "^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$",
});

/** An optional source revision: null or omitted means "not given". */
export const sourceSha = (): JsonSchema =>
  about("Full commit SHA to check evidence against.", nullable(sha()));

/** The optimistic-concurrency check of every write. */
export const expectedRevision = (): JsonSchema =>
  about("The project_revision you last read.", revision());

/** A session, by id; with `conversation` it is one of the two session selectors. */
export const sessionId = (): JsonSchema => about("Session id.", id());

/** The host's stable conversation id, the other selector (the session bound to it). */
export const conversationId = (): JsonSchema =>
  about("Your host's conversation id (or session).", id());

/** The caller's stable id for a write, 1..256 bytes (docs/compatibility/mcp-protocol.md). */
export const requestId = (
  description = "Your id for this write; resend it to retry.",
): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: LIMITS.requestIdBytes,
  description,
});

/** The project's key on the shared service (from awr_projects_list); never a path. */
export const projectKey = (): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: LIMITS.idBytes,
  description: "Key from awr_projects_list, not a path.",
});

/** Who runs a session: the agent's stable name, its model provider and model. */
export const identityFields = (): Record<"agent" | "provider" | "model", JsonSchema> => ({
  agent: about("Your agent name, stable across runs.", id()),
  provider: about("Model provider, e.g. anthropic.", id()),
  model: about("Model name.", id()),
});
