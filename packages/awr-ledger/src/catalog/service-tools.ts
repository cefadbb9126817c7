import type { ObjectSchema } from "./json-schema.js";

/**
 * A tool the shared service answers itself, from its registry, rather than from one project's
 * ledger. It is declared here with the operations, so the catalog names every tool; awr-server
 * supplies the answer.
 */
export interface ServiceTool {
  readonly tool: "awr_projects_list";
  readonly description: string;
  readonly input: ObjectSchema;
}

/** awr_projects_list: the shared service lists it first, so a host finds the keys to pass. */
export const projectsListTool: ServiceTool = {
  tool: "awr_projects_list",
  description:
    "The projects your credential may use: each key with its project_id, your access (read or write) and your workstream grants there (read them with awr_workstream). Call it first; pass a key as `project` to every other tool.",
  input: { type: "object", properties: {}, additionalProperties: false },
};

export const SERVICE_TOOLS: readonly ServiceTool[] = [projectsListTool];
