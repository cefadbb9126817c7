/**
 * The MCP shapes this client reads and writes (revision 2025-11-25, readable from 2025-03-26
 * servers). Only the fields the client relies on are spelled out; servers may send more, and
 * every object keeps unknown fields as they arrived.
 */

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** One block of tool output (text, image, audio, resource_link, resource…). */
export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

/** A tool's answer. `isError: true` is an answer too: the tool ran and reports its own failure. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: Record<string, unknown>;
  completions?: Record<string, unknown>;
  experimental?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  experimental?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  [key: string]: unknown;
}

/** A directory or file the host exposes to servers (`file://` URIs). */
export interface Root {
  uri: string;
  name?: string;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  [key: string]: unknown;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  [key: string]: unknown;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  [key: string]: unknown;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  [key: string]: unknown;
}

/** A parameterised resource (`resources/templates/list`), e.g. `file:///{path}`. */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

/** Syslog severities, as `logging/setLevel` and `notifications/message` use them. */
export type LoggingLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** `completion/complete` params: what to complete, and the argument being typed. */
export interface CompleteParams {
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
  argument: { name: string; value: string };
  /** Values of the other arguments already given (2025-06-18 and later). */
  context?: { arguments?: Record<string, string> };
  [key: string]: unknown;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

export interface LoggingMessage {
  level: string;
  logger?: string;
  data: unknown;
}

/**
 * Params of the server notifications the client knows by name; `onNotification` is typed by
 * this map and accepts any other method with untyped params.
 */
export interface ServerNotificationParams {
  "notifications/tools/list_changed": Record<string, unknown> | undefined;
  "notifications/resources/list_changed": Record<string, unknown> | undefined;
  "notifications/prompts/list_changed": Record<string, unknown> | undefined;
  "notifications/resources/updated": { uri: string };
  "notifications/message": LoggingMessage;
  "notifications/cancelled": { requestId: string | number; reason?: string };
}
