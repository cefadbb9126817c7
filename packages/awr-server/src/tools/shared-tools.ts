import { type ObjectSchema, projectKey } from "@awr/awr-ledger";
import { WORKSTREAM_ACTIONS } from "../workstreams/workstream-format.js";

export const PROJECTS_LIST_TOOL = "awr_projects_list";
export const WORKSTREAM_TOOL = "awr_workstream";

/**
 * A tool of the shared service that is not a ledger operation: the server answers it from its
 * ToolHost. Its input schema is JSON Schema, checked like the catalog's.
 */
export interface SharedToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ObjectSchema;
}

/** Both shared tools only read, as the catalog's reads do. */
export const SHARED_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** awr_projects_list: answered by `ToolHost.listProjects`. */
export const PROJECTS_LIST_DEFINITION: SharedToolDefinition = {
  name: PROJECTS_LIST_TOOL,
  description:
    "The projects your credential may use: each key with your access (read, write, or workstreams only). Call it first; pass a key as `project` to every other tool.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
};

const id = () => ({ type: "string" as const, minLength: 1, maxLength: 256 });

/** awr_workstream: answered by `ToolHost.workstream` (version 2 registries). */
export const WORKSTREAM_DEFINITION: SharedToolDefinition = {
  name: WORKSTREAM_TOOL,
  description:
    "Read-only access to the workstreams your credential is granted. Actions: capabilities, list, context (optionally for `work`), catalog, object (args.id or `work`), events (args.after/args.limit page; `session` or `work` filter). RuleViolation: not granted; Unsupported: workstreams not enabled; SourceStale: the operator must run `awr workstream reindex`.",
  inputSchema: {
    type: "object",
    properties: {
      project: projectKey(),
      protocol_version: { type: "integer", const: 1 },
      action: { type: "string", enum: [...WORKSTREAM_ACTIONS] },
      workstream: id(),
      work: id(),
      session: id(),
      args: {
        type: "object",
        properties: {
          id: id(),
          after: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          limit: { type: "integer", minimum: 1, maximum: 100 },
        },
        additionalProperties: false,
      },
    },
    required: ["project", "protocol_version", "action"],
    additionalProperties: false,
  },
};
