import type { MCPTransport } from "@awr/jsonrpc-core";
import { createHttpTransport } from "@awr/transport-http";
import { createStdioTransport } from "@awr/transport-stdio";
import { MCPClientError, MCPClientErrorCode } from "./client-errors.js";
import { isRecord } from "./internal/result-shapes.js";
import type { HttpServerConfig, ServerConfig, StdioServerConfig } from "./server-config.js";

export interface CreateTransportOptions {
  /** Default request timeout of the transport, in milliseconds. */
  timeout?: number;
  /** The server's name in the transport's error messages. */
  name?: string;
  /**
   * HTTP only: open the GET stream for server-initiated messages (list_changed, roots/list…)
   * after the handshake. Default true.
   */
  listen?: boolean;
  /** HTTP only: a bearer token, asked for before every request (a refreshed token is picked up). */
  getToken?: () => string | undefined | Promise<string | undefined>;
  /** stdio only: receives the server's stderr as it arrives. */
  onStderr?: (chunk: string) => void;
  /** stdio only: how long `close()` waits for the server to exit after its stdin ends. */
  closeGraceMs?: number;
}

/**
 * Picks the transport for a server config (the seed's rule): `type` omitted or "stdio" spawns
 * `command` (no shell); "http" speaks Streamable HTTP; "sse" is the same HTTP transport in
 * legacy HTTP+SSE mode. Anything else throws INVALID_CONFIG. The transport is not connected
 * yet: `MCPClient.connect()` does that.
 */
export function createTransport(
  config: ServerConfig,
  options: CreateTransportOptions = {},
): MCPTransport {
  if (!isRecord(config))
    throw new MCPClientError(
      MCPClientErrorCode.InvalidConfig,
      "createTransport needs a config object",
    );
  const type: unknown = config.type ?? "stdio";
  if (type === "stdio") return stdioTransport(config as StdioServerConfig, options);
  if (type === "http" || type === "sse") return httpTransport(config as HttpServerConfig, options);
  throw new MCPClientError(
    MCPClientErrorCode.InvalidConfig,
    `unknown transport type ${JSON.stringify(type)} (expected "stdio", "http" or "sse")`,
  );
}

function stdioTransport(config: StdioServerConfig, options: CreateTransportOptions): MCPTransport {
  if (typeof config.command !== "string" || config.command.length === 0) {
    throw new MCPClientError(
      MCPClientErrorCode.InvalidConfig,
      'a stdio config needs a non-empty "command"',
    );
  }
  try {
    return createStdioTransport({
      command: config.command,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      ...(options.name ? { name: options.name } : {}),
      ...(options.onStderr ? { onStderr: options.onStderr } : {}),
      ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    });
  } catch (error) {
    throw new MCPClientError(MCPClientErrorCode.InvalidConfig, (error as Error).message, {
      cause: error,
    });
  }
}

function httpTransport(config: HttpServerConfig, options: CreateTransportOptions): MCPTransport {
  if (typeof config.url !== "string") {
    throw new MCPClientError(
      MCPClientErrorCode.InvalidConfig,
      `an ${config.type} config needs a "url"`,
    );
  }
  try {
    return createHttpTransport({
      url: config.url,
      type: config.type,
      ...(config.headers ? { headers: config.headers } : {}),
      listen: options.listen ?? true,
      ...(options.getToken ? { getToken: options.getToken } : {}),
      ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    });
  } catch (error) {
    throw new MCPClientError(MCPClientErrorCode.InvalidConfig, (error as Error).message, {
      cause: error,
    });
  }
}
