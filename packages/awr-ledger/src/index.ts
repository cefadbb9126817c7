// Public API of @awr/awr-ledger. Named exports only.

export {
  type AdmitOptions,
  type AdmittedInput,
  admitArguments,
} from "./catalog/admit-arguments.js";
export {
  type ArgumentsProblem,
  argumentsProblem,
  describeArgumentsProblem,
} from "./catalog/argument-limits.js";
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
} from "./catalog/catalog.js";
export type {
  CliCommand,
  CliFile,
  CliInputFile,
  CliOperand,
  CliSwitch,
} from "./catalog/cli-spec.js";
export type { JsonSchema, JsonType, ObjectSchema } from "./catalog/json-schema.js";
export type { LedgerRuntime } from "./catalog/ledger-runtime.js";
export { LIMITS } from "./catalog/limits.js";
export type { Freshness, Operation, OperationOptions } from "./catalog/operation.js";
export { SERVICE_TOOLS, type ServiceTool } from "./catalog/service-tools.js";
export { projectKey } from "./catalog/shared-fields.js";
export {
  type CheckedSchema,
  type InputIssue,
  PROTO_KEY_ALIAS,
  type Variants,
} from "./catalog/validate-input.js";
export { workstreamRead } from "./catalog/workstream-read-entry.js";
export type { ContextBootstrapInput } from "./context/bootstrap-context.js";
export type { ContextCompileInput } from "./context/compile-context.js";
export { DEFAULT_BOOTSTRAP_BUDGET, DEFAULT_CONTEXT_BUDGET } from "./context/context-defaults.js";
export type * from "./context/context-types.js";
export type { Continuity, ContinuityPredecessor, ContinuityWait } from "./context/continuity.js";
export { SCOPE_KINDS, type ScopeEntry, type ScopeKind } from "./context/rule-scope.js";
export type { RuleFact } from "./context/select-rules.js";
export { countTokens } from "./context/tokens.js";
export type {
  RuntimeCaller,
  RuntimeContext,
  WorkFieldChanges,
  WorkWriteBack,
} from "./core/runtime-context.js";
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
export { entityId } from "./projection/entity-id.js";
export {
  type IndexOptions,
  indexSources,
  type ReindexChanges,
  type ReindexResult,
  type SourceIndexState,
} from "./projection/index-sources.js";
export {
  type SourceRefusal,
  type SourceScan,
  StaleChecker,
} from "./projection/stale-check.js";
export { SEARCH_KINDS, type SearchKind } from "./read/search-kinds.js";
export {
  CONVERSATION_EVENT_TYPES,
  eventSeenBy,
  eventTextVisible,
} from "./runtime/conversation-privacy.js";
export {
  assertNoSecret,
  findSecret,
  findSecretInValue,
  findSecretsInSource,
  REDACTED,
  SECRET_POLICY_VERSION,
  type SecretCategory,
  type SecretFinding,
  type SourceSecretFinding,
  type ValueSecretFinding,
} from "./secrets/index.js";
export type {
  AdapterResult,
  ParsedDependency,
  ParsedEntity,
  SourceIssue,
} from "./sources/adapters/index.js";
export { SOURCE_ADAPTERS } from "./sources/adapters/index.js";
export { DECISION_STATUSES, RULE_SEVERITIES } from "./sources/adapters/markdown-heading-v1.js";
export {
  type AcceptanceCriterion,
  DEFAULT_ACCEPTANCE_LEVEL,
  EVIDENCE_LEVELS,
  WORK_STATUSES,
  type WorkStatus,
} from "./sources/adapters/yaml-ledger-v1.js";
export { confineSourcePath } from "./sources/confinement.js";
export { fingerprintBytes, MISSING_FINGERPRINT } from "./sources/fingerprint.js";
export {
  ADAPTERS,
  type AdapterName,
  type Manifest,
  type ManifestSource,
  type ManifestStorage,
  parseManifest,
  renderManifest,
  SOURCE_DOMAINS,
  type SourceDomain,
} from "./sources/manifest.js";
export { type LoadedManifest, loadManifest, MANIFEST_PATH } from "./sources/read-sources.js";
export {
  type WorkItemChanges,
  type WriteBackResult,
  writeBackWorkItem,
} from "./sources/yaml-write-back.js";
export type { Backend } from "./storage/dialect.js";
export * from "./workstreams/public.js";
