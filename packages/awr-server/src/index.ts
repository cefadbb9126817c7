// Public API of @awr/awr-server. Named exports only.

export { defaultBackend } from "./default-backend.js";
export {
  DEFAULT_MAX_CONCURRENT_CALLS,
  type HttpService,
  type HttpServiceOptions,
  MAX_BODY_BYTES,
  startHttpService,
} from "./http/http-service.js";
export { authenticate, guardRequest, hostAllowed, LOOPBACK_HOSTS } from "./http/request-guard.js";
export { CallLimiter } from "./internal/call-limiter.js";
export type { LedgerBackend } from "./ledger-backend.js";
export type { LedgerCaller, LedgerOpener, LedgerPort } from "./ledger-port.js";
export {
  type CheckRegistryOptions,
  checkRegistry,
  loadRegistry,
  REGISTRY_MAX_BYTES,
  type RegistryCheck,
  RegistryError,
  TOKEN_MIN_LENGTH,
  tokenDigest,
} from "./registry/check-registry.js";
export { NAME_PATTERN } from "./registry/registry-shape.js";
export type {
  IdentityReader,
  Registry,
  RegistryClient,
  RegistryProject,
  WorkstreamGrant,
} from "./registry/registry-types.js";
export {
  BUSY_ERROR_CODE,
  createAwrServer,
  MAX_ARGUMENT_BYTES,
  SERVER_NAME,
  SERVER_VERSION,
} from "./server/create-awr-server.js";
export type { ResolvedProject, ToolHost } from "./server/tool-host.js";
export {
  STDIO_CLIENT,
  type StdioServer,
  type StdioServerOptions,
  startStdioServer,
} from "./stdio/stdio-server.js";
export { AwrToolError, type ToolErrorPayload, toolErrorPayload } from "./tool-result.js";
export {
  PROJECTS_LIST_DEFINITION,
  PROJECTS_LIST_TOOL,
  type SharedToolDefinition,
  WORKSTREAM_DEFINITION,
  WORKSTREAM_TOOL,
} from "./tools/shared-tools.js";
export {
  parseWorkstream,
  WORKSTREAM_ACTIONS,
  type Workstream,
  type WorkstreamProblem,
} from "./workstreams/workstream-format.js";
export {
  enableWorkstreams,
  isWorkstreamsEnabled,
  listWorkstreams,
  reindexWorkstreams,
  WorkstreamError,
  type WorkstreamSummary,
} from "./workstreams/workstream-store.js";
