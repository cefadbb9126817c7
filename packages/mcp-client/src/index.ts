export { type BackoffOptions, backoffDelay } from "@awr/jsonrpc-core";
export { CircuitBreaker, type CircuitBreakerOptions, CircuitState } from "./circuit-breaker.js";
export {
  isMCPClientError,
  MCPClientError,
  MCPClientErrorCode,
  type MCPClientErrorOptions,
} from "./client-errors.js";
export { createTransport } from "./create-transport.js";
export { type ExpansionResult, expandVariables } from "./env-expansion.js";
export { MCPClient } from "./mcp-client.js";
export type {
  CallOptions,
  ConnectOptions,
  MCPClientEvents,
  MCPClientOptions,
  RootsSource,
  ServerRequestHandler,
} from "./mcp-client-options.js";
export {
  type ConfigProblem,
  loadMcpConfig,
  MCP_CONFIG_FILE_NAMES,
  type McpConfig,
  type ParseMcpConfigOptions,
  parseMcpConfig,
} from "./mcp-config.js";
export {
  DEFAULT_BACKOFF,
  type ManagedTool,
  MCPManager,
  type MCPManagerEvents,
  type MCPManagerOptions,
  type StartOptions,
} from "./mcp-manager.js";
export type {
  CallToolResult,
  ClientCapabilities,
  CompleteParams,
  CompleteResult,
  ContentBlock,
  GetPromptResult,
  Implementation,
  InitializeResult,
  LoggingLevel,
  LoggingMessage,
  Prompt,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  ServerNotificationParams,
  Tool,
  ToolAnnotations,
} from "./mcp-types.js";
export {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type SupportedProtocolVersion,
} from "./protocol-version.js";
export {
  type HttpServerConfig,
  isHttpServerConfig,
  type ManagedServerConfig,
  type ManagedServerSettings,
  type ServerConfig,
  type StdioServerConfig,
  type ToolFilter,
  toolPassesFilter,
} from "./server-config.js";
export { ServerState, type ServerStatus } from "./server-status.js";
export {
  type CachedToolList,
  FileToolCache,
  MemoryToolCache,
  serverConfigHash,
  type ToolCacheStore,
} from "./tool-cache.js";
export {
  MAX_TOOL_NAME_LENGTH,
  qualifyToolName,
  type ToolAddress,
  ToolNameMap,
} from "./tool-names.js";
export type {
  CreateTransportOptions,
  HttpTransportOptions,
  StdioTransportOptions,
} from "./transport-options.js";
