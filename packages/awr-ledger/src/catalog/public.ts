// The `@awr/awr-ledger/catalog` entry point: the operation catalog alone (tool names, schemas,
// CLI specs, bounds), without the storage and sources behind it, so a program that only needs
// to know the interface (the CLI building its commands, a client) loads it in a few ms. Also the
// argument checks a server applies at its gate, and the types an operation module is written
// against (type-only: they load nothing).

export { DEFAULT_BOOTSTRAP_BUDGET } from "../context/context-defaults.js";
export type {
  RuntimeCaller,
  RuntimeContext,
  WorkFieldChanges,
  WorkWriteBack,
} from "../core/runtime-context.js";
export { SEARCH_KINDS, type SearchKind } from "../read/search-kinds.js";
export { checkExpectedRevision } from "../storage/revision.js";
export { type AdmitOptions, type AdmittedInput, admitArguments } from "./admit-arguments.js";
export {
  type ArgumentsProblem,
  argumentsProblem,
  describeArgumentsProblem,
} from "./argument-limits.js";
export {
  type CatalogOperation,
  checkedSchemaFor,
  findOperation,
  inputSchemaFor,
  isToolName,
  OPERATION_LIST,
  type ServerMode,
  type ToolDefinition,
  type ToolFeatures,
  type ToolInput,
  type ToolName,
  type ToolOutput,
  takesRequestId,
  toolDefinitions,
} from "./catalog.js";
export type { CliCommand, CliFile, CliInputFile, CliOperand, CliSwitch } from "./cli-spec.js";
export {
  DOMAINS,
  type Domain,
  type DomainManifest,
  domainManifest,
  domainOf,
  findDomain,
  MANIFEST_VERSION,
  type ManifestChild,
  TOOL_EXPOSURE_ENV,
  type ToolExposure,
  toolExposureFrom,
} from "./domains.js";
export { workstreamRead } from "./entries/workstream-read-entry.js";
export type { JsonSchema, JsonType, ObjectSchema } from "./json-schema.js";
export type { LedgerRuntime } from "./ledger-runtime.js";
export { LIMITS } from "./limits.js";
export type { Freshness, Operation, OperationOptions } from "./operation.js";
export { SERVICE_TOOLS, type ServiceTool } from "./service-tools.js";
export { projectKey } from "./shared-fields.js";
export {
  type CheckedSchema,
  type InputIssue,
  PROTO_KEY_ALIAS,
  type Variants,
} from "./validate-input.js";
