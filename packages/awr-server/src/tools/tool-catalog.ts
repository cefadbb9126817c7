import { z } from "zod";
import { expectedRevision, requestId } from "./fields.js";
import { OPERATION_TOOLS } from "./operation-tools.js";
import { SESSION_TOOLS } from "./session-tools.js";
import type { ProjectToolDefinition } from "./tool-definition.js";
import { WORK_TOOLS } from "./work-tools.js";

/** `stdio` serves one project to one local client; `http` is the shared service. */
export type ServerMode = "stdio" | "http";

/** The 20 project tools, in the order tools/list presents them. */
export const PROJECT_TOOLS: readonly ProjectToolDefinition[] = [
  ...WORK_TOOLS,
  ...SESSION_TOOLS,
  ...OPERATION_TOOLS,
];

export const PROJECTS_LIST_TOOL = "awr_projects_list";
export const WORKSTREAM_TOOL = "awr_workstream";

export const projectKey = () =>
  z
    .string()
    .min(1)
    .max(4096)
    .describe("Registry key of the project (from awr_projects_list); never a path.");

/**
 * The full strict input schema of a project tool for one transport: over shared HTTP every
 * tool takes `project` and every write requires `request_id`; on stdio there is no `project`
 * and `request_id` is optional. Unknown fields are refused.
 */
export function projectToolInput(tool: ProjectToolDefinition, mode: ServerMode) {
  const shape: Record<string, z.ZodType> = {};
  if (mode === "http") shape["project"] = projectKey();
  Object.assign(shape, tool.shape);
  if (tool.kind === "write") {
    shape["expected_revision"] = expectedRevision();
    if (!("request_id" in tool.shape)) {
      shape["request_id"] = mode === "http" ? requestId() : requestId().optional();
    }
  }
  return z.object(shape).strict();
}

/**
 * Output schemas describe both outcomes, because clients (the SDK's among them) validate
 * structuredContent against the output schema even on `isError` results: a success carries the
 * tool's fields, an error `{code, message, details?}`. Success fields are therefore optional.
 */
export function outputSchema(success: Record<string, z.ZodType>) {
  const optional = Object.fromEntries(
    Object.entries(success).map(([key, schema]) => [key, schema.optional()]),
  );
  return z.looseObject({
    ...optional,
    code: z.string().describe("On error only: the AWR error code.").optional(),
    message: z.string().describe("On error only: what went wrong and the fix.").optional(),
    details: z
      .record(z.string(), z.unknown())
      .describe("On error only: structured detail.")
      .optional(),
  });
}

/** Every ledger result carries the project's revision; the rest is the domain JSON of TOOLS.md. */
export const ledgerOutput = outputSchema({
  project_revision: z
    .number()
    .int()
    .describe(
      "On success: the project's revision after this call; send it as your next expected_revision.",
    ),
});

export function projectToolAnnotations(tool: ProjectToolDefinition) {
  return {
    title: tool.title,
    readOnlyHint: tool.kind === "read",
    // Writes never act twice: the same request_id replays its recorded result, and a repeat
    // without one fails expected_revision instead of applying again.
    idempotentHint: true,
    destructiveHint: tool.kind === "write" ? tool.destructive === true : false,
    openWorldHint: false,
  };
}
