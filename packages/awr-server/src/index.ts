// Public API of @awr/awr-server. Named exports only.

export { defaultBackend } from "./default-backend.js";
export {
  DEFAULT_MAX_CONCURRENT_CALLS,
  type HttpService,
  type HttpServiceOptions,
  MAX_BODY_BYTES,
  startHttpService,
} from "./http/http-service.js";
export {
  authenticate,
  type GuardedRequest,
  guardRequest,
  hostAllowed,
  LOOPBACK_HOSTS,
  repeatedHeader,
  SINGLE_VALUE_HEADERS,
} from "./http/request-guard.js";
export { CallLimiter } from "./internal/call-limiter.js";
export type { IdentityReader, LedgerBackend } from "./ledger-backend.js";
export type {
  LedgerCaller,
  LedgerCallOptions,
  LedgerOpener,
  LedgerPort,
} from "./ledger-port.js";
export {
  type CheckRegistryOptions,
  checkRegistry,
  loadRegistry,
  REGISTRY_MAX_BYTES,
  type RegistryCheck,
  RegistryError,
  TOKEN_MAX_LENGTH,
  TOKEN_MIN_LENGTH,
  tokenDigest,
} from "./registry/check-registry.js";
export { NAME_PATTERN } from "./registry/registry-shape.js";
export type {
  Registry,
  RegistryClient,
  RegistryProject,
  WorkstreamGrant,
} from "./registry/registry-types.js";
export { type GrantRename, renameWorkstreamGrants } from "./registry/rename-grants.js";
export {
  BUSY_ERROR_CODE,
  createAwrServer,
  MAX_ARGUMENT_BYTES,
  SERVER_NAME,
  SERVER_VERSION,
} from "./server/create-awr-server.js";
export type { ResolvedProject, ResolveOptions, ToolHost } from "./server/tool-host.js";
export {
  STDIO_CLIENT,
  type StdioServer,
  type StdioServerOptions,
  startStdioServer,
} from "./stdio/stdio-server.js";
export { AwrToolError, type ToolErrorPayload, toolErrorPayload } from "./tool-result.js";
