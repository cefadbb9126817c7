import { domainOf, domainToolDefinitions, type ToolExposure } from "./domains.js";
import {
  branchCloseOperation,
  branchCreateOperation,
  branchListOperation,
  branchShowOperation,
  branchSwitchOperation,
} from "./entries/branch-operations.js";
import {
  changeApplyOperation,
  changePreviewOperation,
  changeRecoverOperation,
  changeStatusOperation,
} from "./entries/change-operations.js";
import {
  contextBootstrapOperation,
  operationListOperation,
  sourceListOperation,
  sourceScanOperation,
  workListOperation,
} from "./entries/cli-read-operations.js";
import {
  compactionDeferOperation,
  compactionGetOperation,
  compactionObserveOperation,
} from "./entries/compaction-operations.js";
import {
  operationGetOperation,
  operationRecoverOperation,
  sessionResumeOperation,
  sourceReindexOperation,
} from "./entries/continuity-operations.js";
import { doctorOperation, doctorRepairOperation } from "./entries/doctor-operations.js";
import {
  contextDeltaOperation,
  eventShowOperation,
  objectShowOperation,
} from "./entries/drill-operations.js";
import { workGraphOperation } from "./entries/graph-operations.js";
import { workHandoffOperation } from "./entries/handoff-operations.js";
import { eventHistoryOperation, workHistoryOperation } from "./entries/history-operations.js";
import {
  completionPrepareOperation,
  workAssessOperation,
  workManageOperation,
} from "./entries/management-operations.js";
import { workPrepareOperation } from "./entries/prepare-operations.js";
import {
  contextCompileOperation,
  projectStatusOperation,
  searchOperation,
  workGetOperation,
  workReadyOperation,
} from "./entries/read-operations.js";
import {
  sessionCheckpointOperation,
  sessionClaimOperation,
  sessionEndOperation,
  sessionGetOperation,
  sessionListOperation,
  sessionReplyOperation,
  sessionStartOperation,
  sessionWaitOperation,
} from "./entries/session-operations.js";
import { workstreamOperation } from "./entries/workstream-operations.js";
import {
  eventAppendOperation,
  evidenceRecordOperation,
  workTransitionOperation,
} from "./entries/write-operations.js";
import type { JsonSchema, ObjectSchema } from "./json-schema.js";
import type { Operation } from "./operation.js";
import { SERVICE_TOOLS } from "./service-tools.js";
import { projectKey, requestId } from "./shared-fields.js";
import type { ServerMode, ToolDefinition } from "./tool-definition.js";
import type { CheckedSchema } from "./validate-input.js";

export type { ServerMode, ToolDefinition } from "./tool-definition.js";

/**
 * The operation catalog: every AWR operation, in the order tools/list presents them (the
 * original's), then the CLI-only operations. The MCP tool list, the CLI's commands and the ledger's dispatch are all built from
 * this list and SERVICE_TOOLS; nothing else names the tools (docs/design/operation-catalog.md).
 */
export const OPERATION_LIST = [
  projectStatusOperation,
  workReadyOperation,
  workGetOperation,
  contextCompileOperation,
  workTransitionOperation,
  eventAppendOperation,
  evidenceRecordOperation,
  searchOperation,
  sessionStartOperation,
  sessionGetOperation,
  sessionListOperation,
  sessionCheckpointOperation,
  sessionEndOperation,
  sessionResumeOperation,
  sessionClaimOperation,
  sessionWaitOperation,
  sessionReplyOperation,
  operationGetOperation,
  operationRecoverOperation,
  sourceReindexOperation,
  workAssessOperation,
  workManageOperation,
  workPrepareOperation,
  completionPrepareOperation,
  workGraphOperation,
  changePreviewOperation,
  changeApplyOperation,
  changeStatusOperation,
  changeRecoverOperation,
  compactionObserveOperation,
  compactionGetOperation,
  compactionDeferOperation,
  workstreamOperation,
  // CLI-only (surface "cli"): never tools.
  branchCreateOperation,
  branchListOperation,
  branchShowOperation,
  branchSwitchOperation,
  branchCloseOperation,
  doctorOperation,
  doctorRepairOperation,
  workHandoffOperation,
  objectShowOperation,
  eventShowOperation,
  contextDeltaOperation,
  workHistoryOperation,
  eventHistoryOperation,
  contextBootstrapOperation,
  workListOperation,
  operationListOperation,
  sourceListOperation,
  sourceScanOperation,
] as const;

export type CatalogOperation = (typeof OPERATION_LIST)[number];
export type ToolName = CatalogOperation["tool"];
type ByTool<T extends ToolName> = Extract<CatalogOperation, { tool: T }>;
/** The checked input of a tool, as its implementation takes it. */
export type ToolInput<T extends ToolName> = Parameters<ByTool<T>["run"]>[1];
/** What the implementation of a tool answers (the dispatch adds `ok` and the read policy). */
export type ToolOutput<T extends ToolName> = Awaited<ReturnType<ByTool<T>["run"]>>;

// biome-ignore lint/suspicious/noExplicitAny: entries differ in their input and result types.
type AnyOperation = Operation<any, unknown>;

const BY_TOOL: ReadonlyMap<string, AnyOperation> = new Map(
  OPERATION_LIST.map((entry): [string, AnyOperation] => [entry.tool, entry]),
);

export function findOperation(tool: string): AnyOperation | undefined {
  return BY_TOOL.get(tool);
}

export function isToolName(tool: string): tool is ToolName {
  return BY_TOOL.has(tool);
}

/** What a transport offers beyond the project tools. */
export interface ToolFeatures {
  /** The shared service's registry grants workstreams (version 2): awr_workstream is listed. */
  readonly workstreams?: boolean | undefined;
}

/** Whether an entry is offered as a tool on `mode` with `features` (CLI-only entries never). */
export function offeredOn(entry: AnyOperation, mode: ServerMode, features: ToolFeatures): boolean {
  if (entry.surface === "cli") return false;
  return entry.availability !== "workstreams" || (mode === "http" && features.workstreams === true);
}

/** Writes journaled under a request_id: every write but recovery (whose request_id it names). */
export function takesRequestId(entry: AnyOperation): boolean {
  return entry.kind === "write" && !("request_id" in entry.input.properties);
}

/**
 * A tool's input schema for one transport: every write (but recovery) takes `request_id`,
 * optional on stdio and required on the shared service, where every tool also requires
 * `project`.
 */
export function inputSchemaFor(entry: AnyOperation, mode: ServerMode): ObjectSchema {
  const properties: Record<string, JsonSchema> = { ...entry.input.properties };
  const required = [...(entry.input.required ?? [])];
  if (takesRequestId(entry)) {
    properties["request_id"] = requestId();
    if (mode === "http") required.push("request_id");
  }
  if (mode === "http") {
    properties["project"] = projectKey();
    required.unshift("project");
  }
  return {
    ...entry.input,
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}

/**
 * The schema a call is checked against: the listed one, but the `lenient` arguments keep only
 * their type, so the implementation gives another value its own answer, and the
 * entry's `checked` schemas and variants apply.
 */
export function checkedSchemaFor(entry: AnyOperation, mode: ServerMode): CheckedSchema {
  const listed = inputSchemaFor(entry, mode);
  if (entry.lenient === undefined && entry.checked === undefined) return listed;
  const properties: Record<string, JsonSchema> = {
    ...listed.properties,
    ...entry.checked?.properties,
  };
  for (const name of entry.lenient ?? []) {
    const { const: _const, enum: _enum, ...rest } = properties[name] ?? {};
    properties[name] = rest;
  }
  const variants = entry.checked?.variants;
  return { ...listed, properties, ...(variants === undefined ? {} : { variants }) };
}

/**
 * The catalog's tools for one transport, in catalog order (the service's own first). `grouped`
 * lists the domain tools in place of the operations that belong to a domain; the rest (the
 * service's own, awr_workstream) stay as they are.
 */
export function toolDefinitions(
  mode: ServerMode,
  features: ToolFeatures = {},
  exposure: ToolExposure = "flat",
): ToolDefinition[] {
  const service = mode === "http" ? SERVICE_TOOLS : [];
  const operations = OPERATION_LIST.filter((entry) => offeredOn(entry, mode, features)).map(
    (entry) => ({
      name: entry.tool,
      description: entry.description,
      inputSchema: inputSchemaFor(entry, mode),
      annotations: {
        readOnlyHint: entry.kind === "read",
        destructiveHint: "destructive" in entry && entry.destructive === true,
        idempotentHint: entry.kind === "read",
        openWorldHint: false as const,
      },
    }),
  );
  return [
    ...service.map((tool) => ({
      name: tool.tool,
      description: tool.description,
      inputSchema: tool.input,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false as const,
      },
    })),
    ...(exposure === "flat"
      ? operations
      : [
          ...domainToolDefinitions(mode),
          ...operations.filter((tool) => domainOf(tool.name) === undefined),
        ]),
  ];
}
