// The main entry of @awr/awr-ledger: what an application needs to initialise a project, open
// it, run its tools and handle its errors. The rest of the public API is in subpaths (README
// "API"): ./catalog (the operation catalog, argument checks, operation types), ./context,
// ./sources, ./secrets, ./workstreams, ./open and ./drivers. Named exports only, so every name
// here is chosen; test/public-entries.test.ts keeps the entry at most 60 names.

export {
  inputSchemaFor,
  isToolName,
  OPERATION_LIST,
  type ServerMode,
  type ToolDefinition,
  type ToolInput,
  type ToolName,
  type ToolOutput,
  toolDefinitions,
} from "./catalog/catalog.js";
export { LIMITS } from "./catalog/limits.js";
export type { ContextBootstrapInput } from "./context/bootstrap-context.js";
export type { ContextCompileInput } from "./context/compile-context.js";
export { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_CONTEXT_BUDGET } from "./context/context-defaults.js";
export type { ContextBootstrapResult, ContextCompileResult } from "./context/context-types.js";
export { countTokens } from "./context/tokens.js";
export {
  AWR_ERROR_CODES,
  type AwrErrorCode,
  isLedgerError,
  LedgerError,
  type LedgerErrorDetails,
} from "./errors.js";
export { STARTER_LEDGER_PATH } from "./init/discover-sources.js";
export {
  type InitProjectOptions,
  type InitResult,
  type InitSourceReport,
  initProject,
} from "./init/init-project.js";
export { loadDriversFrom } from "./internal/database-drivers.js";
export {
  type Caller,
  type CallOptions,
  Ledger,
  type LedgerSource,
  LOCK_LEASE_MS_RANGE,
  type OpenLedgerOptions,
  openLedger,
  type ToolResult,
} from "./ledger.js";
export type { LedgerContext } from "./project/ledger-context.js";
export type { DatabaseInput } from "./project/project-storage.js";
export {
  type SourceRefusal,
  type SourceScan,
  StaleChecker,
} from "./projection/stale-check.js";
export {
  CONVERSATION_EVENT_TYPES,
  eventSeenBy,
  eventTextVisible,
} from "./runtime/conversation-privacy.js";
export type { Backend } from "./storage/dialect.js";
