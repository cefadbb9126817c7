import type { ObjectSchema } from "./json-schema.js";
import { projectKey } from "./shared-fields.js";
import type { ServerMode, ToolDefinition } from "./tool-definition.js";

/**
 * Grouped discovery: tools/list shows eight domain tools instead of every operation. A domain
 * called with no arguments answers its manifest (each child's name, description, input schema
 * and read_only); called with `child_tool` and `arguments` it runs that child exactly as the
 * flat tool would (docs/design/grouped-discovery.md).
 */

/** The environment variable that switches tools/list to the flat catalog (`flat`). */
export const TOOL_EXPOSURE_ENV = "AWR_MCP_TOOL_EXPOSURE_MODE";
/** What a manifest's `manifest_version` says; a child call may name it. */
export const MANIFEST_VERSION = "1";

/** `grouped` (the default): the domain tools; `flat`: every tool by its own name. */
export type ToolExposure = "grouped" | "flat";

/** The exposure an environment asks for: only `flat` selects the flat catalog. */
export function toolExposureFrom(env: Readonly<Record<string, string | undefined>>): ToolExposure {
  return env[TOOL_EXPOSURE_ENV] === "flat" ? "flat" : "grouped";
}

export interface Domain {
  readonly name: string;
  readonly description: string;
  readonly children: readonly string[];
}

/** The domains, in tools/list order, each with its children in manifest order. */
export const DOMAINS: readonly Domain[] = [
  {
    name: "awr_query",
    description: "Read the action status, claimable work, one work item, or search.",
    children: ["awr_project_status", "awr_work_ready", "awr_work_get", "awr_search"],
  },
  {
    name: "awr_context",
    description: "Compile context, prepare work or its completion, and assess how to manage work.",
    children: [
      "awr_context_compile",
      "awr_work_prepare",
      "awr_work_assess",
      "awr_completion_prepare",
    ],
  },
  {
    name: "awr_work",
    description: "Apply work transitions, record management observations, read the work graph.",
    children: ["awr_work_transition", "awr_work_manage", "awr_work_graph"],
  },
  {
    name: "awr_evidence",
    description: "Append events and record evidence.",
    children: ["awr_event_append", "awr_evidence_record"],
  },
  {
    name: "awr_session",
    description: "Start, read, list, checkpoint, end, resume or claim work sessions.",
    children: [
      "awr_session_start",
      "awr_session_get",
      "awr_session_list",
      "awr_session_checkpoint",
      "awr_session_end",
      "awr_session_resume",
      "awr_session_claim",
    ],
  },
  {
    name: "awr_continuity",
    description:
      "Wait for and record user replies, read or recover write outcomes, reindex sources.",
    children: [
      "awr_session_wait",
      "awr_session_reply",
      "awr_operation_get",
      "awr_operation_recover",
      "awr_source_reindex",
    ],
  },
  {
    name: "awr_change",
    description: "Preview, apply, inspect and recover reviewed source changes.",
    children: ["awr_change_preview", "awr_change_apply", "awr_change_status", "awr_change_recover"],
  },
  {
    name: "awr_compaction",
    description: "Report native context compaction, read its advice, or defer it.",
    children: ["awr_compaction_observe", "awr_compaction_get", "awr_compaction_defer"],
  },
];

const BY_NAME: ReadonlyMap<string, Domain> = new Map(DOMAINS.map((d) => [d.name, d]));
const BY_CHILD: ReadonlyMap<string, Domain> = new Map(
  DOMAINS.flatMap((d) => d.children.map((child): [string, Domain] => [child, d])),
);

export function findDomain(name: string): Domain | undefined {
  return BY_NAME.get(name);
}

/** The domain a flat tool belongs to (undefined for awr_projects_list and our own tools). */
export function domainOf(tool: string): Domain | undefined {
  return BY_CHILD.get(tool);
}

const DISCOVERY =
  " Call with no arguments for the child tools; then pass child_tool and arguments.";

function domainInput(mode: ServerMode): ObjectSchema {
  return {
    type: "object",
    properties: {
      ...(mode === "http" ? { project: projectKey() } : {}),
      child_tool: { type: "string", minLength: 1 },
      arguments: { type: "object" },
      manifest_version: { type: "string", minLength: 1 },
    },
    ...(mode === "http" ? { required: ["project"] } : {}),
    additionalProperties: false,
  };
}

/** The domain tools as tools/list shows them. */
export function domainToolDefinitions(mode: ServerMode): ToolDefinition[] {
  return DOMAINS.map((domain) => ({
    name: domain.name,
    description: `${domain.description}${DISCOVERY}`,
    inputSchema: domainInput(mode),
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false as const,
    },
  }));
}

export interface ManifestChild {
  readonly name: string;
  readonly description: string;
  readonly input_schema: ObjectSchema;
  readonly read_only: boolean;
}

export interface DomainManifest {
  readonly mode: "manifest";
  readonly domain: string;
  readonly manifest_version: string;
  readonly child_total: number;
  readonly children: readonly ManifestChild[];
  readonly usage: string;
}

/** A domain's manifest, from the flat definitions of the same transport. */
export function domainManifest(
  domain: Domain,
  flat: readonly ToolDefinition[],
  mode: ServerMode,
): DomainManifest {
  const children = domain.children.flatMap((name) => {
    const tool = flat.find((t) => t.name === name);
    return tool === undefined
      ? []
      : [
          {
            name: tool.name,
            description: tool.description,
            input_schema: tool.inputSchema,
            read_only: tool.annotations.readOnlyHint,
          },
        ];
  });
  return {
    mode: "manifest",
    domain: domain.name,
    manifest_version: MANIFEST_VERSION,
    child_total: children.length,
    children,
    usage:
      mode === "http"
        ? "Call this domain again with project, child_tool and arguments."
        : "Call this domain again with child_tool and arguments.",
  };
}
