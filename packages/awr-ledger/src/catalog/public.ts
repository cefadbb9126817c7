// The `@awr/awr-ledger/catalog` entry point: the operation catalog alone (tool names, schemas,
// CLI specs, bounds), without the storage and sources behind it, so a program that only needs
// to know the interface (the CLI building its commands, a client) loads it in a few ms.

export { DEFAULT_BOOTSTRAP_BUDGET } from "../context/context-defaults.js";
export { checkExpectedRevision } from "../storage/revision.js";
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
export type { JsonSchema, JsonType, ObjectSchema } from "./json-schema.js";
export { LIMITS } from "./limits.js";
export { SERVICE_TOOLS, type ServiceTool } from "./service-tools.js";
