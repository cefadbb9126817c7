import { LIMITS } from "../../core/limits.js";
import { LedgerError } from "../../errors.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import {
  CATALOG_KINDS,
  CATALOG_STATES,
  WORKSTREAM_ACTIONS,
  WORKSTREAM_PROTOCOL_VERSION,
  WORKSTREAM_SEARCH_KINDS,
} from "../../workstreams/workstream-capabilities.js";
import type { WorkstreamRequest } from "../../workstreams/workstream-read.js";
import { about, id, type JsonSchema, object } from "../json-schema.js";
import { operation } from "../operation.js";

export interface WorkstreamToolInput {
  protocol_version: number;
  action: string;
  workstream?: string | undefined;
  work?: string | undefined;
  session?: string | undefined;
  args?: Record<string, unknown> | undefined;
}

/** Optional text of 1..`max` bytes (`null`: omitted). */
const optText = (max: number): JsonSchema => ({
  type: ["string", "null"],
  minLength: 1,
  maxLength: max,
});
/** An optional safe integer in `minimum`..`maximum` (`null`: omitted). */
const optInt = (minimum: number, maximum = Number.MAX_SAFE_INTEGER): JsonSchema => ({
  type: ["integer", "null"],
  minimum,
  maximum,
});
const optChoice = (choices: readonly string[]): JsonSchema => ({
  type: ["string", "null"],
  enum: [...choices],
});
/** A page cursor: the previous page's next_cursor object, passed on whole for the read to open. */
const cursor: JsonSchema = { type: ["object", "null"], additionalProperties: true };

/**
 * Each action's `args`, checked at the gate once the call names protocol_version 1 and a known
 * action (what capabilities describes). capabilities and list have none: the read refuses any
 * args, workstream, work or session they are given, in its own words.
 */
export const WORKSTREAM_ARGS = {
  context: object({
    budget: optInt(LIMITS.budget.min, LIMITS.budget.max),
    intent: optText(LIMITS.workstreamTextBytes),
    checkpoint: optText(LIMITS.workstreamNameBytes),
    after_revision: optInt(0),
  }),
  catalog: object(
    {
      // `source` passes, for the read to answer Unsupported: no source catalog is served.
      kind: optChoice([...CATALOG_KINDS, "source"]),
      state: optChoice(CATALOG_STATES),
      cursor,
      limit: optInt(LIMITS.limit.min, LIMITS.limit.max),
    },
    ["kind"],
  ),
  search: object({
    text: optText(LIMITS.workstreamTextBytes),
    kind: optChoice(WORKSTREAM_SEARCH_KINDS),
    status: optText(LIMITS.workstreamNameBytes),
    work: optText(LIMITS.workstreamTextBytes),
    limit: optInt(LIMITS.limit.min, LIMITS.limit.max),
  }),
  // Another kind passes, for the read to answer Unsupported.
  object: object(
    { kind: optText(LIMITS.workstreamKindBytes), reference: optText(LIMITS.workstreamTextBytes) },
    ["kind", "reference"],
  ),
  events: object({
    after_revision: optInt(0),
    cursor,
    limit: optInt(LIMITS.limit.min, LIMITS.limit.max),
  }),
  recovery: object({}),
};

/**
 * awr_workstream, the shared service's scoped reads (docs/compatibility/workstreams.md): the
 * ledger's workstreamRead for the caller's grants. The schema lists protocol_version 1 and
 * its eight actions, but another version or action reaches the ledger, which answers
 * Unsupported; each action's `args` are the ledger's to
 * check. An incomplete context packet is ContextIncomplete carrying the whole envelope.
 */
export const workstreamOperation = operation({
  tool: "awr_workstream",
  kind: "read",
  freshness: "scoped",
  availability: "workstreams",
  lenient: ["protocol_version", "action"],
  checked: {
    // Selectors are never empty, and a session id is at most 128 bytes.
    properties: {
      work: { type: "string", minLength: 1, maxLength: LIMITS.idBytes },
      session: { type: "string", minLength: 1, maxLength: LIMITS.workstreamNameBytes },
    },
    variants: {
      by: "action",
      field: "args",
      when: { protocol_version: WORKSTREAM_PROTOCOL_VERSION },
      schemas: WORKSTREAM_ARGS,
    },
  },
  description:
    "Read-only access to the workstreams your credential is granted (a project grant alone reads none). Start with action capabilities (the actions and their args), then list. The workstream comes from session or work (its owner), else workstream, else your only grant. Answers {ok, read_only, protocol_version, workstream, scope_binding, project_revision, result}; an incomplete context is an error result. Errors: WorkstreamAccessDenied, WorkstreamScopeRequired, WorkstreamBindingMismatch, WorkstreamStaleAuthority (ask the operator), SourceStale, Unsupported.",
  input: object(
    {
      protocol_version: about("Always 1.", { type: "integer", const: 1 }),
      action: about("What to read; start with capabilities.", {
        type: "string",
        enum: [...WORKSTREAM_ACTIONS],
      }),
      workstream: about("A granted workstream key.", id()),
      work: about("Work key; selects its workstream.", id()),
      session: about("Session id; selects its workstream.", id()),
      args: {
        type: "object",
        additionalProperties: true,
        description: "Action-specific fields; use capabilities for schemas.",
      },
    },
    ["protocol_version", "action"],
  ),
  run: async (host, input: WorkstreamRequest, _caller, options) => {
    const { readWorkstream } = await loadInOrder(
      () => import("../../workstreams/workstream-read.js"),
    );
    const project = host.project;
    if (project === undefined) {
      throw new LedgerError("Unsupported", "awr_workstream needs the project's sources");
    }
    const ledger = { store: host.runtime.store, projectId: project.projectId, context: project };
    const answer = await readWorkstream(ledger, input, options.workstreamAccess, options);
    if (answer["ok"] === false) {
      const result = answer["result"] as { completeness?: unknown };
      throw new LedgerError(
        "ContextIncomplete",
        "The workstream context has required gaps; inspect completeness before execution.",
        { completeness: result.completeness },
        { result: answer },
      );
    }
    return answer;
  },
  cli: [],
});
