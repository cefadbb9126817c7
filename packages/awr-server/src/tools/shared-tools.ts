import { z } from "zod";
import { WORKSTREAM_ACTIONS } from "../workstreams/workstream-format.js";
import { id } from "./fields.js";
import { outputSchema, PROJECTS_LIST_TOOL, projectKey, WORKSTREAM_TOOL } from "./tool-catalog.js";

const READ_ONLY = {
  readOnlyHint: true,
  idempotentHint: true,
  destructiveHint: false,
  openWorldHint: false,
} as const;

/**
 * A shared-service tool that is not backed by one ledger method. The definitions are built once
 * per process (schemas are immutable and shared by every request); the server supplies the
 * behaviour from its ToolHost.
 */
export interface SharedToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  readonly annotations: Record<string, unknown>;
}

/** awr_projects_list: answered by `ToolHost.listProjects`. */
export const PROJECTS_LIST_DEFINITION: SharedToolDefinition = {
  name: PROJECTS_LIST_TOOL,
  title: "Projects",
  description:
    "The projects your credential may use: each registry key with your access (read or write), its identity (project_id and canonical root on the server) and any workstream grants. Call it first after connecting; pass a key as `project` to every other tool.",
  input: z.object({}).strict(),
  output: outputSchema({
    client: z.string(),
    projects: z.array(
      z.looseObject({
        key: z.string(),
        access: z.enum(["read", "write", "workstreams"]),
        project_id: z.string(),
        root: z.string(),
      }),
    ),
  }),
  annotations: { title: "Projects", ...READ_ONLY },
};

/** awr_workstream: answered by `ToolHost.workstream`. */
export const WORKSTREAM_DEFINITION: SharedToolDefinition = {
  name: WORKSTREAM_TOOL,
  title: "Workstream reads",
  description:
    "Read-only access to the workstreams your credential is granted (exact project, workstream_id and authority_version). Start with action capabilities, then list. Actions: capabilities (what you may do; no writes exist), list (granted workstreams), context (a compact packet of a workstream, optionally focused on `work`), catalog (its work items and objects), object (one item or object: args.id or `work`), events (its events; args.after (sequence) and args.limit page them; `session` or `work` filter). Errors: RuleViolation (not granted: ask the operator for a grant), NotFound (no such workstream or object), Unsupported (workstreams not enabled on the project), SourceStale (the workstream files changed: the operator must run `awr workstream reindex`).",
  input: z
    .object({
      project: projectKey(),
      protocol_version: z.literal(1).describe("Always 1."),
      action: z.enum(WORKSTREAM_ACTIONS).describe(WORKSTREAM_ACTIONS.join(" | ")),
      workstream: id("workstream_id (required except for capabilities and list).").optional(),
      work: id("Work item id inside the workstream.").optional(),
      session: id("Session id to filter events by.").optional(),
      args: z
        .object({
          id: id("Object or work item id (action object).").optional(),
          after: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
          limit: z.number().int().min(1).max(100).optional(),
        })
        .strict()
        .describe("Action-specific options.")
        .optional(),
    })
    .strict(),
  output: outputSchema({ protocol_version: z.literal(1), action: z.string() }),
  annotations: { title: "Workstream reads", ...READ_ONLY },
};
