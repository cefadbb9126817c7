import type { MCPTransport, TransportCloseInfo } from "@awr/jsonrpc-core";
import { type BackoffOptions, backoffDelay } from "../backoff.js";
import { CircuitBreaker, type CircuitBreakerOptions, CircuitState } from "../circuit-breaker.js";
import { MCPClientError, MCPClientErrorCode } from "../client-errors.js";
import { MCPClient } from "../mcp-client.js";
import type { MCPClientOptions } from "../mcp-client-options.js";
import type { Implementation, Tool } from "../mcp-types.js";
import type { ManagedServerConfig, ServerConfig } from "../server-config.js";
import { ServerState, type ServerStatus } from "../server-status.js";
import { serverConfigHash, type ToolCacheStore } from "../tool-cache.js";
import { abortableSleep, errorStderrTail, toError } from "./async-helpers.js";

export interface ServerConnectionDeps {
  clientInfo: Implementation;
  clientOptions: MCPClientOptions;
  createTransport: (config: ServerConfig, server: string) => MCPTransport;
  cache: ToolCacheStore | undefined;
  cacheTtlMs: number;
  startupTimeoutMs: number;
  backoff: BackoffOptions;
  breaker: CircuitBreakerOptions;
  onStatus: (status: ServerStatus, previous: ServerState) => void;
  onTools: (server: string) => void;
  onError: (error: Error, server: string) => void;
}

interface Waiter {
  check: () => boolean;
}

/**
 * One managed server: connects, serves cached tools until live ones arrive, and heals. The run
 * loop owns every transition; a loss (transport close, session expiry) ends the current
 * session, counts as a breaker failure, and a new transport and client are built after a
 * jittered backoff. An open breaker parks the server in `failed` until its cool-down ends.
 */
export class ServerConnection {
  readonly name: string;
  readonly config: ManagedServerConfig;
  readonly cacheKey: string;
  readonly #deps: ServerConnectionDeps;
  readonly #breaker: CircuitBreaker;
  readonly #stop = new AbortController();
  readonly #waiters = new Set<Waiter>();
  #state: ServerState = ServerState.Closed;
  #enabled = true;
  #client: MCPClient | undefined;
  #tools: Tool[] = [];
  #toolsFromCache = false;
  #lastError: Error | undefined;
  #stderrTail: string | undefined;
  #attempts = 0;
  #retryAt: number | undefined;
  #settled = false;
  #loss: ((info: TransportCloseInfo) => void) | undefined;
  #running: Promise<void> | undefined;
  #lastTransport: MCPTransport | undefined;

  constructor(name: string, config: ManagedServerConfig, deps: ServerConnectionDeps) {
    this.name = name;
    this.config = config;
    this.cacheKey = serverConfigHash(config);
    this.#deps = deps;
    this.#breaker = new CircuitBreaker(deps.breaker);
  }

  get state(): ServerState {
    return this.#state;
  }

  get tools(): readonly Tool[] {
    return this.#tools;
  }

  get client(): MCPClient | undefined {
    return this.#state === ServerState.Ready ? this.#client : undefined;
  }

  /** True once the first attempt ended (ready or failed): what the startup gate waits for. */
  get settled(): boolean {
    return this.#settled;
  }

  get status(): ServerStatus {
    return {
      name: this.name,
      state: this.#state,
      enabled: this.#enabled,
      lastError: this.#lastError,
      stderrTail: this.#stderrTail,
      attempts: this.#attempts,
      circuit: this.#breaker.state,
      retryAt: this.#retryAt,
      toolCount: this.#tools.length,
      toolsFromCache: this.#toolsFromCache,
      serverInfo: this.#client?.serverInfo,
      protocolVersion: this.#client?.protocolVersion,
    };
  }

  /** Marks the server as unusable from the start (a bad config entry). */
  markInvalid(error: Error): void {
    this.#enabled = false;
    this.#lastError = error;
    this.#settled = true;
    this.#setState(ServerState.Closed);
  }

  /** Starts the run loop (idempotent). */
  start(): void {
    if (this.#running || this.#stop.signal.aborted || !this.#enabled) return;
    this.#running = this.#run().catch((error: unknown) =>
      this.#deps.onError(toError(error), this.name),
    );
  }

  /** Stops for good: the run loop ends, the client closes, waiters reject. */
  async stop(reason: "closed" | "disabled" = "closed"): Promise<void> {
    if (reason === "disabled") this.#enabled = false;
    this.#stop.abort();
    this.#loss?.({});
    const client = this.#client;
    this.#client = undefined;
    this.#settled = true;
    this.#setState(ServerState.Closed);
    await client?.close().catch(() => {});
    await this.#running;
  }

  /** Resolves once the first attempt ended, or when `signal` aborts (the startup gate). */
  whenSettled(signal: AbortSignal): Promise<void> {
    return this.#wait(() => this.#settled, signal).catch(() => {});
  }

  /**
   * A ready client, waiting through connecting/deferred/reconnecting. Fails fast when the server
   * is disabled, closed, or its breaker is open; rejects with SERVER_UNAVAILABLE when `timeoutMs`
   * passes first and with `signal.reason` on abort.
   */
  async waitReady(options: { signal?: AbortSignal; timeoutMs: number }): Promise<MCPClient> {
    const immediate = this.#readyOrFailure();
    if (immediate instanceof MCPClient) return immediate;
    if (immediate) throw immediate;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      await this.#wait(() => this.#readyOrFailure() !== undefined, signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new MCPClientError(
        MCPClientErrorCode.ServerUnavailable,
        `server "${this.name}" is not ready after ${options.timeoutMs}ms (state: ${this.#state})`,
        { cause: this.#lastError ?? error, stderrTail: this.#stderrTail },
      );
    }
    const outcome = this.#readyOrFailure();
    if (outcome instanceof MCPClient) return outcome;
    throw outcome;
  }

  /** A call on `client` proved the session dead (e.g. session expired): reconnect. */
  reportLoss(client: MCPClient, error: Error): void {
    this.#lose(client, { error });
  }

  /** Synchronous, so no caller is handed the dead client between the loss and the run loop. */
  #lose(client: MCPClient, info: TransportCloseInfo): void {
    if (client !== this.#client || this.#state !== ServerState.Ready) return;
    this.#client = undefined;
    this.#lastError = info.error ?? new Error("the connection closed");
    this.#setState(ServerState.Reconnecting);
    this.#loss?.(info);
  }

  #readyOrFailure(): MCPClient | MCPClientError | undefined {
    if (!this.#enabled) {
      return new MCPClientError(
        MCPClientErrorCode.ServerDisabled,
        `server "${this.name}" is disabled`,
        {
          cause: this.#lastError,
        },
      );
    }
    if (this.#stop.signal.aborted)
      return new MCPClientError(MCPClientErrorCode.ManagerClosed, "the manager is closed");
    if (this.#state === ServerState.Ready && this.#client) return this.#client;
    if (this.#state === ServerState.Failed) {
      return new MCPClientError(
        MCPClientErrorCode.CircuitOpen,
        `server "${this.name}" failed ${this.#breaker.failureThreshold} times recently; retrying after ${this.#breaker.msUntilAttempt()}ms`,
        { cause: this.#lastError, stderrTail: this.#stderrTail },
      );
    }
    return undefined;
  }

  async #run(): Promise<void> {
    await this.#loadCachedTools();
    const stop = this.#stop.signal;
    let everReady = false;
    while (!stop.aborted) {
      if (!this.#breaker.tryAttempt()) {
        this.#retryAt = Date.now() + this.#breaker.msUntilAttempt();
        this.#settled = true;
        this.#setState(ServerState.Failed);
        await abortableSleep(this.#breaker.msUntilAttempt() + 1, stop);
        continue;
      }
      this.#retryAt = undefined;
      if (everReady || this.#attempts > 0) this.#setState(ServerState.Reconnecting);
      else this.#setState(this.#toolsFromCache ? ServerState.Deferred : ServerState.Connecting);
      let lost: TransportCloseInfo;
      try {
        const client = await this.#connectOnce();
        if (!client.connected) throw new Error("the connection closed right after the handshake");
        const loss = new Promise<TransportCloseInfo>((resolve) => {
          this.#loss = resolve;
        });
        this.#breaker.recordSuccess();
        everReady = true;
        this.#attempts = 0;
        this.#settled = true;
        this.#setState(ServerState.Ready);
        lost = await loss;
        this.#loss = undefined;
        if (this.#client === client) this.#client = undefined;
        void client.close().catch(() => {});
      } catch (error) {
        lost = { error: toError(error) };
      }
      if (stop.aborted) break;
      this.#lastError = lost.error ?? new Error("the connection closed");
      this.#stderrTail = errorStderrTail(lost.error) ?? this.#transportStderr() ?? this.#stderrTail;
      this.#breaker.recordFailure();
      this.#attempts++;
      this.#settled = true;
      if (this.#breaker.state !== CircuitState.Closed) continue;
      const delay = backoffDelay(this.#attempts, this.#deps.backoff);
      this.#retryAt = Date.now() + delay;
      this.#setState(ServerState.Reconnecting);
      await abortableSleep(delay, stop);
    }
  }

  async #connectOnce(): Promise<MCPClient> {
    const transport = this.#deps.createTransport(this.config, this.name);
    this.#lastTransport = transport;
    const client = new MCPClient(transport, this.#deps.clientInfo, {
      ...this.#deps.clientOptions,
      // The manager heals an expired session with a fresh transport (and its retry policy).
      renewExpiredSessions: false,
      requestTimeout: this.config.timeout ?? this.#deps.clientOptions.requestTimeout,
    });
    client.on("error", (error) => this.#deps.onError(error, this.name));
    client.on("close", (info) => this.#lose(client, info));
    client.onNotification("notifications/tools/list_changed", () => {
      if (this.#deps.cache) void this.#deps.cache.delete(this.cacheKey).catch(() => {});
    });
    client.on("toolsChanged", (tools) => {
      if (client !== this.#client && this.#client !== undefined) return;
      this.#acceptTools(tools);
    });
    this.#client = client;
    const attempt = AbortSignal.any([
      this.#stop.signal,
      AbortSignal.timeout(this.#deps.startupTimeoutMs),
    ]);
    try {
      await client.connect({ signal: attempt });
      await client.listTools({ signal: attempt });
      return client;
    } catch (error) {
      if (this.#client === client) this.#client = undefined;
      await client.close().catch(() => {});
      if (this.#stop.signal.aborted) throw error;
      if (attempt.aborted) {
        throw new MCPClientError(
          MCPClientErrorCode.ServerUnavailable,
          `server "${this.name}" did not start within ${this.#deps.startupTimeoutMs}ms`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** stdio transports keep a stderr ring buffer; read it when an error did not carry one. */
  #transportStderr(): string | undefined {
    const tail = (this.#lastTransport as { stderrTail?: unknown } | undefined)?.stderrTail;
    return typeof tail === "string" && tail.length > 0 ? tail : undefined;
  }

  #acceptTools(tools: readonly Tool[]): void {
    this.#tools = [...tools];
    this.#toolsFromCache = false;
    if (this.#deps.cache) {
      void this.#deps.cache
        .set(this.cacheKey, { tools: this.#tools, savedAt: Date.now() })
        .catch(() => {});
    }
    this.#deps.onTools(this.name);
  }

  async #loadCachedTools(): Promise<void> {
    const cache = this.#deps.cache;
    if (!cache) return;
    const entry = await cache.get(this.cacheKey).catch(() => undefined);
    if (!entry || Date.now() - entry.savedAt > this.#deps.cacheTtlMs || this.#tools.length > 0)
      return;
    this.#tools = entry.tools;
    this.#toolsFromCache = true;
    this.#deps.onTools(this.name);
  }

  #setState(state: ServerState): void {
    const previous = this.#state;
    this.#state = state;
    this.#deps.onStatus(this.status, previous);
    for (const waiter of [...this.#waiters]) waiter.check();
  }

  #wait(ready: () => boolean, signal: AbortSignal): Promise<void> {
    if (ready()) return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        check: () => {
          if (!ready()) return false;
          done();
          resolve();
          return true;
        },
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const done = () => {
        this.#waiters.delete(waiter);
        signal.removeEventListener("abort", onAbort);
      };
      this.#waiters.add(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
