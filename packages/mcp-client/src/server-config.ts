import type { CreateTransportOptions } from "./transport-options.js";

/**
 * Server entries as Claude Code and Cursor write them under `mcpServers`, plus the manager's
 * own optional per-server settings (other hosts ignore unknown keys, so one file serves all).
 */

export interface StdioServerConfig {
  /** Omitted or "stdio": spawn `command` with `args` (no shell). */
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface HttpServerConfig {
  /** "http": Streamable HTTP. "sse": the legacy HTTP+SSE transport (2024-11-05). */
  type: "http" | "sse";
  url: string;
  headers?: Record<string, string>;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** Tool filters by original (server-side) tool name; `deny` wins over `allow`. */
export interface ToolFilter {
  /** When set, only these tools are exposed. */
  allow?: string[];
  deny?: string[];
}

export interface ManagedServerSettings {
  /** False (or `disabled: true`) keeps the server configured but not started. */
  enabled?: boolean;
  disabled?: boolean;
  /** Default per-call timeout in milliseconds for this server. */
  timeout?: number;
  /** Milliseconds allowed for one connect attempt (spawn/initialize/tools/list). */
  startupTimeout?: number;
  tools?: ToolFilter;
  /** Transport options for this server, over the manager's `transport` options. */
  transport?: Omit<CreateTransportOptions, "name">;
}

export type ManagedServerConfig = ServerConfig & ManagedServerSettings;

export function isHttpServerConfig(config: ServerConfig): config is HttpServerConfig {
  return config.type === "http" || config.type === "sse";
}

/** Whether the manager should run this server. */
export function isServerEnabled(settings: ManagedServerSettings): boolean {
  return settings.enabled !== false && settings.disabled !== true;
}

/** Whether a filter lets `tool` through. */
export function toolPassesFilter(tool: string, filter: ToolFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.deny?.includes(tool)) return false;
  return filter.allow === undefined || filter.allow.includes(tool);
}
