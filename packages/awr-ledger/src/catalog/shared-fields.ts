import { type JsonSchema, nullable } from "./json-schema.js";
import { LIMITS } from "./limits.js";

/** A full source revision SHA (40 hex digits, or 64 for SHA-256 repositories). */
export const sha = (): JsonSchema => ({
  type: "string",
  pattern: "^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$",
});

/** An optional source revision: null or omitted means "not given". */
export const sourceSha = (): JsonSchema => nullable(sha());

/** The caller's stable id for a write (the original's 1..256). */
export const requestId = (): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: LIMITS.requestIdBytes,
});

/** The project's key on the shared service (from awr_projects_list); never a path. */
export const projectKey = (): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: LIMITS.idBytes,
  description: "Project key from awr_projects_list; never a path.",
});
