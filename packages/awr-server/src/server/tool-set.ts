import { type ServerMode, type ToolDefinition, toolDefinitions } from "@awr/awr-ledger";
import {
  type CatalogOperation,
  type CheckedSchema,
  checkedSchemaFor,
  DOMAINS,
  type Domain,
  type DomainManifest,
  domainManifest,
  findOperation,
  SERVICE_TOOLS,
  type ServiceTool,
  type ToolExposure,
} from "@awr/awr-ledger/catalog";
import type { Tool } from "../sdk/mcp-sdk.js";

/**
 * What answers a tool call: a catalog operation of the project, one the service answers, or a
 * domain tool (grouped discovery), which answers its manifest or runs one of its children.
 */
export type ToolTarget =
  | { readonly kind: "project"; readonly operation: CatalogOperation }
  | { readonly kind: "service"; readonly tool: ServiceTool }
  | { readonly kind: "domain"; readonly domain: Domain; readonly manifest: DomainManifest };

export interface ToolSetEntry {
  readonly name: string;
  /** The input schema tools/call checks (the catalog's, for this transport). */
  readonly input: CheckedSchema;
  readonly target: ToolTarget;
}

/**
 * The tools one server instance offers, built from the operation catalog for the transport,
 * whether the registry grants workstreams, and the exposure. Built once per process and shared
 * by every request. Every flat tool and every domain tool is callable whatever the exposure
 * (hosts written for either keep working); the exposure only chooses what tools/list shows.
 */
export interface ToolSet {
  readonly entries: ReadonlyMap<string, ToolSetEntry>;
  /** The tools/list result; shared and frozen, never mutate it. */
  listResult(): { tools: Tool[] };
}

export interface ToolSetFeatures {
  readonly workstreams: boolean;
  readonly exposure: ToolExposure;
}

const sets = new Map<string, ToolSet>();

/** The shared ToolSet of a mode and feature combination (at most eight exist). */
export function toolSet(mode: ServerMode, features: ToolSetFeatures): ToolSet {
  const key = `${mode}:${features.workstreams}:${features.exposure}`;
  let set = sets.get(key);
  if (!set) {
    set = buildToolSet(mode, features);
    sets.set(key, set);
  }
  return set;
}

function buildToolSet(mode: ServerMode, features: ToolSetFeatures): ToolSet {
  const flat = toolDefinitions(mode, features, "flat");
  const listed = features.exposure === "flat" ? flat : toolDefinitions(mode, features, "grouped");
  const entries = new Map<string, ToolSetEntry>();
  for (const definition of flat) {
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
  const definitions = toolDefinitions(mode, features, "grouped");
  for (const domain of DOMAINS) {
    const definition = definitions.find((d) => d.name === domain.name) as ToolDefinition;
    const manifest = deepFreeze(domainManifest(domain, flat, mode));
    entries.set(domain.name, {
      name: domain.name,
      input: definition.inputSchema,
      target: { kind: "domain", domain, manifest },
    });
  }
  const list = deepFreeze({ tools: listed as Tool[] });
  return { entries, listResult: () => list };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
