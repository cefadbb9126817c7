import {
  type BackoffOptions,
  isLocalError,
  LocalErrorCode,
  type MCPTransport,
} from "@awr/jsonrpc-core";
import type { CircuitBreakerOptions } from "./circuit-breaker.js";
import { MCPClientError, MCPClientErrorCode } from "./client-errors.js";
import { createTransport } from "./create-transport.js";
import { ListenerSet } from "./internal/listener-set.js";
import type { MCPClient } from "./mcp-client.js";
import type { CallOptions, MCPClientOptions } from "./mcp-client-options.js";
import { loadMcpConfig, type ParseMcpConfigOptions } from "./mcp-config.js";
import type { CallToolResult, Implementation, Tool } from "./mcp-types.js";
import { PACKAGE_VERSION } from "./package-version.js";
import {
  isServerEnabled,
  type ManagedServerConfig,
  type ServerConfig,
  toolPassesFilter,
} from "./server-config.js";
import { ServerConnection } from "./server-connection.js";
import type { ServerState, ServerStatus } from "./server-status.js";
import { MemoryToolCache, type ToolCacheStore } from "./tool-cache.js";
import { type ToolAddress, ToolNameMap } from "./tool-names.js";
import type { CreateTransportOptions } from "./transport-options.js";

export interface MCPManagerOptions {
  /** How the manager introduces itself in `initialize`. */
  clientInfo?: Implementation;
  servers?: Record<string, ManagedServerConfig>;
  /** Passed to every MCPClient (roots, capabilities, request handlers…). */
  client?: MCPClientOptions;
  /** Default per-call timeout in milliseconds (60 000); a server's `timeout` overrides it. */
  requestTimeout?: number;
  /** Milliseconds allowed for one connect attempt (30 000). */
  startupTimeout?: number;
  /** Where tool lists are cached between runs (default: in memory); `false` disables. */
  toolCache?: ToolCacheStore | false;
  /** Age after which a cached tool list is ignored, in milliseconds (24 h). */
  toolCacheTtlMs?: number;
  /** Backoff between reconnect attempts (see {@link DEFAULT_BACKOFF}). */
  reconnect?: Partial<BackoffOptions>;
  circuitBreaker?: Omit<CircuitBreakerOptions, "now">;
  /**
   * How long a session must last to count as a success for the circuit breaker, in
   * milliseconds (10 000): a server that crashes sooner after every start is a crash loop.
   */
  stableAfterMs?: number;
  /**
   * Options for the default transport factory, for every server (every option of
   * createTransport: stdio `maxFrameBytes`, `killGraceMs`, `inheritEnv`…, HTTP `listen`,
   * `reconnect`…); a server's own `transport` setting overrides them.
   */
  transport?: Omit<CreateTransportOptions, "name">;
  /** Builds transports (default: {@link createTransport}). */
  createTransport?: (config: ServerConfig, server: string) => MCPTransport;
  /** Cap on qualified tool names (64). */
  maxToolNameLength?: number;
}

/** A tool as the manager exposes it: the qualified name, and where it comes from. */
export interface ManagedTool extends Tool {
  /** `mcp__<server>__<tool>` (see qualifyToolName). */
  name: string;
  server: string;
  originalName: string;
  /** True when the server is still starting and this entry comes from the cache. */
  deferred: boolean;
}

export interface MCPManagerEvents {
  /** A server changed state; `status` is a snapshot taken at the change. */
  state: [status: ServerStatus, previous: ServerState];
  /** A server's tool list changed (cache loaded, live list arrived, list_changed refresh). */
  toolsChanged: [server: string];
  /** An error nobody is waiting for (background refresh failed, a listener threw…). */
  error: [error: Error, server: string | undefined];
}

export interface StartOptions {
  /** Return after this many milliseconds even if some servers are still starting (5 000). */
  gateMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_CLIENT_INFO: Implementation = { name: "awr-mcp-client", version: PACKAGE_VERSION };

/** Reconnect backoff: 250 ms, doubling, capped at 30 s, half of it random. */
export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = Object.freeze({
  initialDelayMs: 250,
  maxDelayMs: 30_000,
  factor: 2,
  jitter: 0.5,
});

/** Local failures that mean the session is gone (as opposed to a slow or failing tool). */
const SESSION_LOSS_CODES: ReadonlySet<string> = new Set([
  LocalErrorCode.TransportClosed,
  LocalErrorCode.TransportFailed,
  LocalErrorCode.ProcessExited,
  LocalErrorCode.SessionExpired,
]);

/**
 * Whether a failed call means the session is gone. The HTTP transport reports a lost session
 * (404, or a 400 saying the session id is unknown) as SESSION_EXPIRED.
 */
function isSessionLoss(error: unknown): boolean {
  if (error instanceof MCPClientError) return error.code === MCPClientErrorCode.NotConnected;
  return isLocalError(error) && SESSION_LOSS_CODES.has(error.code);
}

/**
 * Runs many MCP servers: parallel start behind a gate, cached tools for slow starters,
 * reversible tool names, and healing (reconnect with backoff and a circuit breaker; one retry
 * of read-only or idempotent tools).
 */
export class MCPManager {
  readonly #options: MCPManagerOptions;
  readonly #configs = new Map<string, ManagedServerConfig>();
  readonly #connections = new Map<string, ServerConnection>();
  readonly #names: ToolNameMap;
  readonly #events = new ListenerSet<MCPManagerEvents>((error, event) => {
    if (event !== "error")
      this.#events.emit(
        "error",
        error instanceof Error ? error : new Error(String(error)),
        undefined,
      );
  });
  readonly #cache: ToolCacheStore | undefined;
  #closed = false;

  constructor(options: MCPManagerOptions = {}) {
    this.#options = options;
    this.#names = new ToolNameMap(options.maxToolNameLength);
    this.#cache =
      options.toolCache === false ? undefined : (options.toolCache ?? new MemoryToolCache());
    for (const [name, config] of Object.entries(options.servers ?? {}))
      this.#configs.set(name, config);
    for (const name of this.#configs.keys()) this.#connections.set(name, this.#newConnection(name));
  }

  /** A manager for the servers of a `.mcp.json` / `mcp.json` file (or a directory holding one). */
  static async fromConfigFile(
    pathOrDirectory: string,
    options: MCPManagerOptions & ParseMcpConfigOptions & { signal?: AbortSignal } = {},
  ): Promise<MCPManager> {
    const config = await loadMcpConfig(pathOrDirectory, options);
    const manager = new MCPManager({
      ...options,
      servers: { ...config.servers, ...options.servers },
    });
    for (const problem of config.problems) manager.#addInvalid(problem.server, problem.error);
    return manager;
  }

  on<K extends keyof MCPManagerEvents>(
    event: K,
    listener: (...args: MCPManagerEvents[K]) => void,
  ): () => void {
    return this.#events.on(event, listener);
  }

  /**
   * Connects every enabled server in parallel and resolves when all of them finished their
   * first attempt (ready or failed) or when `gateMs` elapsed, whichever is first. Servers still
   * starting keep going in the background; their cached tools are served meanwhile.
   */
  async start(options: StartOptions = {}): Promise<ServerStatus[]> {
    if (options.signal?.aborted) throw options.signal.reason;
    this.#assertOpen();
    for (const connection of this.#connections.values()) connection.start();
    const gate = AbortSignal.timeout(options.gateMs ?? 5_000);
    const signal = options.signal ? AbortSignal.any([options.signal, gate]) : gate;
    await Promise.all(
      [...this.#connections.values()].map((connection) => connection.whenSettled(signal)),
    );
    if (options.signal?.aborted) throw options.signal.reason;
    return this.statuses();
  }

  statuses(): ServerStatus[] {
    return [...this.#connections.values()].map((connection) => connection.status);
  }

  status(server: string): ServerStatus | undefined {
    return this.#connections.get(server)?.status;
  }

  /** The live client of a ready server (undefined otherwise). */
  getClient(server: string): MCPClient | undefined {
    return this.#connections.get(server)?.client;
  }

  /** Every exposed tool: live ones of ready servers and cached ones of servers still starting. */
  listTools(): ManagedTool[] {
    const tools: ManagedTool[] = [];
    for (const connection of this.#connections.values()) {
      if (!connection.status.enabled) continue;
      const deferred = connection.status.toolsFromCache;
      for (const tool of connection.tools) {
        if (!toolPassesFilter(tool.name, connection.config.tools)) continue;
        const name = this.#names.add(connection.name, tool.name);
        tools.push({ ...tool, name, server: connection.name, originalName: tool.name, deferred });
      }
    }
    return tools;
  }

  /**
   * Maps a qualified name back to (server, tool) through the name map of the tools exposed now
   * (live, or cached for servers still starting). Names are never split: a name no server
   * listed resolves to undefined.
   */
  resolveToolName(qualifiedName: string): ToolAddress | undefined {
    if (typeof qualifiedName !== "string") return undefined;
    const known = this.#names.resolve(qualifiedName);
    if (known) return known;
    this.listTools(); // registers the names of every tool known now
    return this.#names.resolve(qualifiedName);
  }

  /**
   * Calls a tool by its qualified name (as returned by {@link listTools}). A name no server lists
   * yet waits (within the call's timeout) for the servers still making their first connection
   * with no tools known (none cached): one of them may list it.
   */
  async callTool(
    qualifiedName: string,
    args?: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (options.signal?.aborted) throw options.signal.reason;
    let address = this.resolveToolName(qualifiedName);
    const starting = [...this.#connections.values()].filter(
      (connection) =>
        connection.status.enabled && !connection.settled && connection.tools.length === 0,
    );
    if (!address && starting.length > 0) {
      const timeout = AbortSignal.timeout(
        options.timeout ?? this.#options.requestTimeout ?? 60_000,
      );
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      await Promise.all(starting.map((connection) => connection.whenSettled(signal)));
      if (options.signal?.aborted) throw options.signal.reason;
      address = this.resolveToolName(qualifiedName);
    }
    if (!address) {
      const still = starting.filter((connection) => !connection.settled).map((c) => c.name);
      throw new MCPClientError(
        MCPClientErrorCode.UnknownTool,
        `unknown tool ${JSON.stringify(qualifiedName)}: no server lists it` +
          (still.length > 0
            ? ` (still starting, with no tools known yet: ${still.join(", ")})`
            : " (use a name from listTools())"),
      );
    }
    return this.callServerTool(address.server, address.tool, args, options);
  }

  /**
   * Calls `tool` on `server`, waiting (within the call's timeout) for a server that is starting or
   * reconnecting. Refuses (UNKNOWN_TOOL) a tool the server does not list. When the session is
   * lost during the call, the server is healed and the call is retried once, but only for tools
   * annotated `readOnlyHint` or `idempotentHint`.
   */
  async callServerTool(
    server: string,
    tool: string,
    args?: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (options.signal?.aborted) throw options.signal.reason;
    this.#assertOpen();
    const connection = this.#connections.get(server);
    if (!connection)
      throw new MCPClientError(MCPClientErrorCode.UnknownServer, `unknown server "${server}"`);
    if (!toolPassesFilter(tool, connection.config.tools)) {
      throw new MCPClientError(
        MCPClientErrorCode.UnknownTool,
        `tool "${tool}" of server "${server}" is filtered out`,
      );
    }
    const timeout =
      options.timeout ?? connection.config.timeout ?? this.#options.requestTimeout ?? 60_000;
    const callOptions: CallOptions = { ...options, timeout };
    const client = await connection.waitReady({ signal: options.signal, timeoutMs: timeout });
    if (!connection.tools.some((candidate) => candidate.name === tool)) {
      throw new MCPClientError(
        MCPClientErrorCode.UnknownTool,
        `server "${server}" does not list a tool "${tool}" (it lists ${connection.tools.length}: see listTools())`,
        { details: { server, tool } },
      );
    }
    try {
      return await client.callTool(tool, args, callOptions);
    } catch (error) {
      if (options.signal?.aborted || !isSessionLoss(error)) throw error;
      connection.reportLoss(client, error instanceof Error ? error : new Error(String(error)));
      const annotations = connection.tools.find(
        (candidate) => candidate.name === tool,
      )?.annotations;
      if (annotations?.readOnlyHint !== true && annotations?.idempotentHint !== true) throw error;
      const healed = await connection.waitReady({ signal: options.signal, timeoutMs: timeout });
      return healed.callTool(tool, args, callOptions);
    }
  }

  /** Enables (and starts) or disables (and stops) a configured server. */
  async setServerEnabled(server: string, enabled: boolean): Promise<void> {
    this.#assertOpen();
    const config = this.#configs.get(server);
    const current = this.#connections.get(server);
    if (!config || !current)
      throw new MCPClientError(MCPClientErrorCode.UnknownServer, `unknown server "${server}"`);
    if (enabled === current.status.enabled) return;
    if (!enabled) {
      await current.stop("disabled");
      this.#events.emit("toolsChanged", server);
      return;
    }
    this.#configs.set(server, { ...config, enabled: true, disabled: false });
    const next = this.#newConnection(server);
    this.#connections.set(server, next);
    next.start();
  }

  /** Stops every server (no process left behind; HTTP sessions are ended). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#connections.values()].map((connection) => connection.stop()));
  }

  #newConnection(name: string): ServerConnection {
    const config = this.#configs.get(name) as ManagedServerConfig;
    const options = this.#options;
    const connection = new ServerConnection(name, config, {
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      clientOptions: {
        ...options.client,
        requestTimeout: options.client?.requestTimeout ?? options.requestTimeout,
      },
      createTransport:
        options.createTransport ??
        ((serverConfig, server) =>
          createTransport(serverConfig, {
            ...options.transport,
            ...config.transport,
            name: server,
          })),
      cache: this.#cache,
      cacheTtlMs: options.toolCacheTtlMs ?? 24 * 60 * 60 * 1000,
      startupTimeoutMs: config.startupTimeout ?? options.startupTimeout ?? 30_000,
      backoff: { ...DEFAULT_BACKOFF, ...options.reconnect },
      breaker: options.circuitBreaker ?? {},
      stableAfterMs: options.stableAfterMs ?? 10_000,
      onStatus: (status, previous) => this.#events.emit("state", status, previous),
      onTools: (server) => this.#events.emit("toolsChanged", server),
      onError: (error, server) => this.#events.emit("error", error, server),
    });
    if (!isServerEnabled(config)) void connection.stop("disabled");
    return connection;
  }

  #addInvalid(name: string, error: MCPClientError): void {
    this.#configs.set(name, { command: "" });
    const connection = this.#newConnection(name);
    connection.markInvalid(error);
    this.#connections.set(name, connection);
  }

  #assertOpen(): void {
    if (this.#closed)
      throw new MCPClientError(MCPClientErrorCode.ManagerClosed, "the manager is closed");
  }
}
