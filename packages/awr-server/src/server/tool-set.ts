import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import {
  PROJECTS_LIST_DEFINITION,
  type SharedToolDefinition,
  WORKSTREAM_DEFINITION,
} from "../tools/shared-tools.js";
import {
  ledgerOutput,
  PROJECT_TOOLS,
  projectToolAnnotations,
  projectToolInput,
  type ServerMode,
} from "../tools/tool-catalog.js";
import type { ProjectToolDefinition } from "../tools/tool-definition.js";

/** What answers a tool call: a ledger method of the project, or one of the host's own reads. */
export type ToolTarget =
  | { readonly kind: "project"; readonly tool: ProjectToolDefinition }
  | { readonly kind: "projects-list" }
  | { readonly kind: "workstream" };

export interface ToolSetEntry {
  readonly name: string;
  /** The strict input schema tools/call validates against. */
  readonly input: z.ZodType;
  readonly target: ToolTarget;
}

/**
 * The tools one server instance offers. It depends only on the transport mode and on which
 * optional host capabilities exist, so it is built once per process and shared by every
 * request: zod schemas are immutable, and the tools/list answer (JSON Schema conversion
 * included) is computed on first use and frozen.
 */
export interface ToolSet {
  readonly entries: ReadonlyMap<string, ToolSetEntry>;
  /** The tools/list result, in catalog order; shared and frozen, never mutate it. */
  listResult(): { tools: Tool[] };
}

export interface ToolSetFeatures {
  readonly projectsList: boolean;
  readonly workstream: boolean;
}

interface Described {
  readonly entry: ToolSetEntry;
  readonly title: string;
  readonly description: string;
  readonly output: z.ZodObject;
  readonly annotations: Record<string, unknown>;
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

function buildToolSet(mode: ServerMode, features: ToolSetFeatures): ToolSet {
  const described: Described[] = PROJECT_TOOLS.map((tool) => ({
    entry: {
      name: tool.name,
      input: projectToolInput(tool, mode),
      target: { kind: "project", tool },
    },
    title: tool.title,
    description: tool.description,
    output: ledgerOutput,
    annotations: projectToolAnnotations(tool),
  }));
  if (features.projectsList) described.push(shared(PROJECTS_LIST_DEFINITION, "projects-list"));
  if (features.workstream) described.push(shared(WORKSTREAM_DEFINITION, "workstream"));

  const entries = new Map(described.map((tool) => [tool.entry.name, tool.entry]));
  let list: { tools: Tool[] } | undefined;
  return {
    entries,
    listResult() {
      list ??= deepFreeze({ tools: listTools(described) });
      return list;
    },
  };
}

function shared(definition: SharedToolDefinition, kind: "projects-list" | "workstream"): Described {
  return {
    entry: { name: definition.name, input: definition.input, target: { kind } },
    title: definition.title,
    description: definition.description,
    output: definition.output,
    annotations: definition.annotations,
  };
}

/**
 * The tools/list entries exactly as the SDK's McpServer renders tools registered with
 * registerTool (same converter and options, same fields and order, `execution` included), so
 * clients see no difference; only the work is done once instead of on every request.
 */
function listTools(described: readonly Described[]): Tool[] {
  const outputs = new Map<z.ZodObject, Tool["outputSchema"]>();
  return described.map((tool) => {
    let outputSchema = outputs.get(tool.output);
    if (!outputSchema) {
      outputSchema = toJsonSchemaCompat(tool.output, {
        strictUnions: true,
        pipeStrategy: "output",
      }) as Tool["outputSchema"];
      outputs.set(tool.output, outputSchema);
    }
    return {
      name: tool.entry.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toJsonSchemaCompat(tool.entry.input as z.ZodObject, {
        strictUnions: true,
        pipeStrategy: "input",
      }) as Tool["inputSchema"],
      annotations: tool.annotations,
      execution: { taskSupport: "forbidden" },
      outputSchema,
    };
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
