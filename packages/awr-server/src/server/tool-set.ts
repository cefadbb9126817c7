import {
  type CatalogOperation,
  findOperation,
  inputSchemaFor,
  type ObjectSchema,
  type ServerMode,
  toolDefinitions,
} from "@awr/awr-ledger";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  PROJECTS_LIST_DEFINITION,
  SHARED_ANNOTATIONS,
  type SharedToolDefinition,
  WORKSTREAM_DEFINITION,
} from "../tools/shared-tools.js";

/** What answers a tool call: a catalog operation of the project, or one of the host's own reads. */
export type ToolTarget =
  | { readonly kind: "project"; readonly operation: CatalogOperation }
  | { readonly kind: "projects-list" }
  | { readonly kind: "workstream" };

export interface ToolSetEntry {
  readonly name: string;
  /** The input schema tools/call checks (the catalog's, for this transport). */
  readonly input: ObjectSchema;
  readonly target: ToolTarget;
}

/**
 * The tools one server instance offers, built from the operation catalog for the transport and
 * the host's optional capabilities. Built once per process and shared by every request; the
 * tools/list answer is the catalog's definitions as they are (the original's shape: name,
 * description, input schema, annotations), frozen.
 */
export interface ToolSet {
  readonly entries: ReadonlyMap<string, ToolSetEntry>;
  /** The tools/list result; shared and frozen, never mutate it. */
  listResult(): { tools: Tool[] };
}

export interface ToolSetFeatures {
  readonly projectsList: boolean;
  readonly workstream: boolean;
}

const sets = new Map<string, ToolSet>();

/** The shared ToolSet of a mode and feature combination (at most eight exist). */
export function toolSet(mode: ServerMode, features: ToolSetFeatures): ToolSet {
  const key = `${mode}:${features.projectsList}:${features.workstream}`;
  let set = sets.get(key);
  if (!set) {
    set = buildToolSet(mode, features);
    sets.set(key, set);
  }
  return set;
}

function sharedTool(definition: SharedToolDefinition): Tool {
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: definition.inputSchema,
    annotations: SHARED_ANNOTATIONS,
  };
}

function buildToolSet(mode: ServerMode, features: ToolSetFeatures): ToolSet {
  const tools: Tool[] = [];
  const entries = new Map<string, ToolSetEntry>();
  // The shared service lists awr_projects_list first, as the original does.
  if (features.projectsList) {
    tools.push(sharedTool(PROJECTS_LIST_DEFINITION));
    entries.set(PROJECTS_LIST_DEFINITION.name, {
      name: PROJECTS_LIST_DEFINITION.name,
      input: PROJECTS_LIST_DEFINITION.inputSchema,
      target: { kind: "projects-list" },
    });
  }
  for (const definition of toolDefinitions(mode)) {
    tools.push(definition);
    const operation = findOperation(definition.name) as CatalogOperation;
    entries.set(definition.name, {
      name: definition.name,
      input: inputSchemaFor(operation, mode),
      target: { kind: "project", operation },
    });
  }
  if (features.workstream) {
    tools.push(sharedTool(WORKSTREAM_DEFINITION));
    entries.set(WORKSTREAM_DEFINITION.name, {
      name: WORKSTREAM_DEFINITION.name,
      input: WORKSTREAM_DEFINITION.inputSchema,
      target: { kind: "workstream" },
    });
  }
  const list = deepFreeze({ tools });
  return { entries, listResult: () => list };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
