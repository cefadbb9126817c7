import { type ServerMode, toolDefinitions } from "@awr/awr-ledger";
import {
  type CatalogOperation,
  type CheckedSchema,
  checkedSchemaFor,
  findOperation,
  SERVICE_TOOLS,
  type ServiceTool,
} from "@awr/awr-ledger/catalog";
import type { Tool } from "../sdk/mcp-sdk.js";

/** What answers a tool call: a catalog operation of the project, or one the service answers. */
export type ToolTarget =
  | { readonly kind: "project"; readonly operation: CatalogOperation }
  | { readonly kind: "service"; readonly tool: ServiceTool };

export interface ToolSetEntry {
  readonly name: string;
  /** The input schema tools/call checks (the catalog's, for this transport). */
  readonly input: CheckedSchema;
  readonly target: ToolTarget;
}

/**
 * The tools one server instance offers, built from the operation catalog for the transport and
 * whether the registry grants workstreams. Built once per process and shared by every request;
 * the tools/list answer is the catalog's definitions as they are (name,
 * description, input schema, annotations), frozen.
 */
export interface ToolSet {
  readonly entries: ReadonlyMap<string, ToolSetEntry>;
  /** The tools/list result; shared and frozen, never mutate it. */
  listResult(): { tools: Tool[] };
}

export interface ToolSetFeatures {
  readonly workstreams: boolean;
}

const sets = new Map<string, ToolSet>();

/** The shared ToolSet of a mode and feature combination (at most four exist). */
export function toolSet(mode: ServerMode, features: ToolSetFeatures): ToolSet {
  const key = `${mode}:${features.workstreams}`;
  let set = sets.get(key);
  if (!set) {
    set = buildToolSet(mode, features);
    sets.set(key, set);
  }
  return set;
}

function buildToolSet(mode: ServerMode, features: ToolSetFeatures): ToolSet {
  const tools = toolDefinitions(mode, features);
  const entries = new Map<string, ToolSetEntry>();
  for (const definition of tools) {
    const { name } = definition;
    const operation = findOperation(name) as CatalogOperation | undefined;
    const service = SERVICE_TOOLS.find((tool) => tool.tool === name);
    if (operation !== undefined) {
      const input = checkedSchemaFor(operation, mode);
      entries.set(name, { name, input, target: { kind: "project", operation } });
    } else if (service !== undefined) {
      entries.set(name, { name, input: service.input, target: { kind: "service", tool: service } });
    }
  }
  const list = deepFreeze({ tools: tools as Tool[] });
  return { entries, listResult: () => list };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
