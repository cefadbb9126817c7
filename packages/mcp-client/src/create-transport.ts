import type { MCPTransport } from "@awr/jsonrpc-core";
import { createHttpTransport } from "@awr/transport-http";
import { createStdioTransport } from "@awr/transport-stdio";
import { MCPClientError, MCPClientErrorCode } from "./client-errors.js";
import { isRecord } from "./internal/result-shapes.js";
import type { HttpServerConfig, ServerConfig, StdioServerConfig } from "./server-config.js";
import type { CreateTransportOptions } from "./transport-options.js";

/** The options without their undefined members (the transports validate what is set). */
function defined<T extends object>(options: T): T {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as T;
}

/** Splits createTransport's options into the HTTP transports' and the stdio transport's. */
function splitOptions(options: CreateTransportOptions) {
  const {
    listen,
    getToken,
    authProvider,
    maxBodyBytes,
    reconnect,
    idleTimeoutMs,
    closeTimeoutMs,
    fetch,
    ...stdio
  } = options;
  const http = {
    listen,
    getToken,
    authProvider,
    maxBodyBytes,
    reconnect,
    idleTimeoutMs,
    closeTimeoutMs,
    fetch,
    timeout: options.timeout,
  };
  return { http: defined(http), stdio: defined(stdio) };
}

/**
 * Picks the transport for a server config: `type` omitted or "stdio" spawns `command` (no
 * shell); "http" speaks Streamable HTTP (HttpTransport); "sse" the legacy HTTP+SSE transport
 * (SseTransport). Every option is passed on to the transport it concerns. Anything unusable
 * throws INVALID_CONFIG naming it. The transport is not connected yet: `MCPClient.connect()`
 * does that.
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
      ...splitOptions(options).stdio,
      command: config.command,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
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
    const { http } = splitOptions(options);
    return createHttpTransport({
      ...http,
      listen: http.listen ?? true,
      url: config.url,
      type: config.type,
      ...(config.headers ? { headers: config.headers } : {}),
    });
  } catch (error) {
    throw new MCPClientError(MCPClientErrorCode.InvalidConfig, (error as Error).message, {
      cause: error,
    });
  }
}
