import { LIMITS } from "../core/limits.js";

/** The actions of awr_workstream protocol version 1, in the order `capabilities` lists them. */
export const WORKSTREAM_ACTIONS = [
  "capabilities",
  "list",
  "context",
  "catalog",
  "search",
  "object",
  "events",
  "recovery",
] as const;
export type WorkstreamAction = (typeof WORKSTREAM_ACTIONS)[number];

export const WORKSTREAM_PROTOCOL_VERSION = 1;

const LIST_LIMIT = `${LIMITS.limit.min}..${LIMITS.limit.max}, default ${LIMITS.limit.default}`;

/** What `catalog` lists (`source` is named so it is answered Unsupported, not refused). */
export const CATALOG_KINDS = [
  "goal",
  "plan",
  "rule",
  "work",
  "decision",
  "relation",
  "artifact",
  "evidence",
] as const;
export const CATALOG_STATES = ["active", "retired", "all"] as const;
/** What `search` may be narrowed to. */
export const WORKSTREAM_SEARCH_KINDS = [
  "work",
  "goal",
  "plan",
  "rule",
  "decision",
  "evidence",
] as const;

/**
 * An action's `args` as the gate admitted them against the action's schema (the catalog's
 * workstream arguments): declared names only, each of its type and in its range.
 */
export type WorkstreamArgs = Readonly<Record<string, unknown>>;

/**
 * What `capabilities` answers: the protocol, its read actions and their arguments, and what this
 * build does not offer (no writes, no artifact content, no team PostgreSQL service, no file
 * sandbox, no deliveries across workstreams).
 */
export function workstreamCapabilities(): Record<string, unknown> {
  return {
    protocol: "awr-shared-workstream",
    protocol_version: WORKSTREAM_PROTOCOL_VERSION,
    reads: [...WORKSTREAM_ACTIONS],
    writes: [],
    artifact_content: false,
    team_postgres: false,
    filesystem_sandbox: false,
    cross_workstream_deliveries: false,
    legacy_tools:
      "refused (Unsupported) on a project that serves workstreams and for a credential with workstream grants on the project",
    selection:
      "the workstream of the bound session or work item, else the explicit workstream, else the only one you are granted; selectors that disagree are refused",
    recheck:
      "every call checks the sources are fresh and your grant matches the workstream's current authority_version; grants change when the operator restarts the service",
    arguments: {
      capabilities: {},
      list: {},
      context: {
        budget: `integer ${LIMITS.budget.min}..${LIMITS.budget.max}, default ${LIMITS.budget.default}`,
        intent: "optional text",
        checkpoint: "optional checkpoint id (not with after_revision)",
        after_revision: "optional integer (not with checkpoint)",
      },
      catalog: {
        kind: "goal|plan|rule|work|decision|relation|artifact|evidence",
        state: "active|retired|all, default active",
        limit: LIST_LIMIT,
        cursor: "optional next_cursor of the previous page",
      },
      search: {
        text: "optional text, matched literally",
        kind: "optional work|goal|plan|rule|decision|evidence",
        status: "optional status",
        work: "optional work key",
        limit: LIST_LIMIT,
      },
      object: {
        kind: "work|session|checkpoint|artifact|evidence|event",
        reference: "a key or id",
      },
      events: {
        after_revision: "optional integer, default 0",
        limit: LIST_LIMIT,
        cursor: "optional next_cursor of the previous page",
      },
      recovery: {},
    },
  };
}
