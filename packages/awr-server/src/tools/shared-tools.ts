import { WORKSTREAM_ACTIONS } from "@awr/awr-ledger";
import { z } from "zod";
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
    "The projects your credential may use: each registry key with your access (read or write), its identity (project_id and canonical root on the server) and your workstream grants there (read them with awr_workstream). Call it first after connecting; pass a key as `project` to every other tool.",
  input: z.object({}).strict(),
  output: outputSchema({
    client: z.string(),
    projects: z.array(
      z.looseObject({
        key: z.string(),
        access: z.enum(["read", "write"]),
        project_id: z.string(),
        root: z.string(),
      }),
    ),
  }),
  annotations: { title: "Projects", ...READ_ONLY },
};

/**
 * awr_workstream: answered by `ToolHost.workstream` (the ledger's workstreamRead). The listed
 * schema is the original's (protocol_version 1, its eight actions); validation here is looser
 * on purpose, so that another protocol_version or action reaches the ledger and is answered
 * Unsupported, as the original answers it, and each action's `args` are checked by the ledger.
 */
export const WORKSTREAM_DEFINITION: SharedToolDefinition = {
  name: WORKSTREAM_TOOL,
  title: "Workstream reads",
  description:
    "Read-only access to the workstreams your credential is granted (the operator grants an exact workstream id and authority_version; a project grant alone reads none). Start with action capabilities (the actions and their args), then list. The workstream comes from `session` or `work` (its owner), else `workstream`, else the only one you are granted; they must agree. context {budget, intent, checkpoint, after_revision}: the bound item's context packet; catalog {kind, state, cursor, limit}: a page of goals, plans, rules, work, decisions, relations, artifacts or evidence; search {text, kind, status, work, limit}; object {kind, reference}; events {after_revision, cursor, limit}; recovery: resume candidates or a session's checkpoint. Results: {ok, read_only, protocol_version, workstream, scope_binding, project_revision, result}; an incomplete context is an error result with ok: false. Errors: WorkstreamAccessDenied (no grant, or not visible: hidden and missing look alike), WorkstreamScopeRequired (several grants: select one), WorkstreamBindingMismatch (selectors disagree), WorkstreamStaleAuthority (the grant's authority_version is outdated: ask the operator), WorkstreamUnavailable, SourceStale (the operator must reindex), Unsupported (workstreams not enabled, or another protocol or action).",
  input: z
    .object({
      project: projectKey(),
      protocol_version: z.number().int().meta({ const: 1 }).describe("Always 1."),
      action: z
        .string()
        .max(64)
        .meta({ enum: [...WORKSTREAM_ACTIONS] })
        .describe(WORKSTREAM_ACTIONS.join(" | ")),
      workstream: z
        .string()
        .min(1)
        .max(64)
        .describe("Workstream id (from action list).")
        .optional(),
      work: z
        .string()
        .min(1)
        .max(4096)
        .describe("Work item key; selects its workstream.")
        .optional(),
      session: z
        .string()
        .min(1)
        .max(128)
        .describe("Session id; selects its work's workstream.")
        .optional(),
      args: z
        .record(z.string(), z.unknown())
        .describe("Action-specific fields; use capabilities for schemas.")
        .optional(),
    })
    .strict(),
  output: outputSchema({
    ok: z.boolean(),
    read_only: z.literal(true),
    protocol_version: z.literal(1),
    workstream: z.looseObject({ id: z.string(), authority_version: z.number() }),
    scope_binding: z.string(),
    project_revision: z.number(),
    result: z.record(z.string(), z.unknown()),
  }),
  annotations: { title: "Workstream reads", ...READ_ONLY },
};
