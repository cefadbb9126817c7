import {
  type BackoffOptions,
  backoffDelay,
  type MCPTransport,
  sleep,
  type TransportCloseInfo,
} from "@awr/jsonrpc-core";
import { CircuitBreaker, type CircuitBreakerOptions, CircuitState } from "./circuit-breaker.js";
import { MCPClientError, MCPClientErrorCode } from "./client-errors.js";
import { errorStderrTail, toError } from "./internal/async-helpers.js";
import { Condition } from "./internal/condition.js";
import { isConfigError } from "./internal/config-errors.js";
import { MCPClient } from "./mcp-client.js";
import type { MCPClientOptions } from "./mcp-client-options.js";
import type { Implementation, Tool } from "./mcp-types.js";
import type { ManagedServerConfig, ServerConfig } from "./server-config.js";
import { ServerState, type ServerStatus } from "./server-status.js";
import { serverConfigHash, type ToolCacheStore } from "./tool-cache.js";

export interface ServerConnectionDeps {
  clientInfo: Implementation;
  clientOptions: MCPClientOptions;
  createTransport: (config: ServerConfig, server: string) => MCPTransport;
  cache: ToolCacheStore | undefined;
  cacheTtlMs: number;
  startupTimeoutMs: number;
  backoff: BackoffOptions;
  breaker: CircuitBreakerOptions;
  /** A session that lasts this long counts as a success for the breaker (crash loops do not). */
  stableAfterMs: number;
  onStatus: (status: ServerStatus, previous: ServerState) => void;
  onTools: (server: string) => void;
  onError: (error: Error, server: string) => void;
}

/**
 * One managed server: connects, serves cached tools until live ones arrive, and heals. The run
 * loop owns every transition; a failed attempt or a loss (transport close, session expiry)
 * counts as a breaker failure, and a new transport and client are built after a jittered
 * backoff. A session counts as a success once it lasted `stableAfterMs`, so a server that
 * crashes right after each start keeps failing and the breaker's cool-down grows. An open
 * breaker parks the server in `failed` until its probe; a configuration error (missing
 * command, invalid URL, unset variable) parks it there for good, without retries.
 */
export class ServerConnection {
  readonly name: string;
  readonly config: ManagedServerConfig;
  readonly cacheKey: string;
  readonly #deps: ServerConnectionDeps;
  readonly #breaker: CircuitBreaker;
  readonly #stop = new AbortController();
  readonly #changes = new Condition();
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
  /** The read of this server's cached tools that starts its run (a local read, not the server). */
  #cacheRead: Promise<void> = Promise.resolve();
  #lastTransport: MCPTransport | undefined;
  #configError: Error | undefined;

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
      cooldownMs:
        this.#breaker.state === CircuitState.Closed ? undefined : this.#breaker.currentCooldownMs,
      retryAt: this.#retryAt,
      toolCount: this.#tools.length,
      toolsFromCache: this.#toolsFromCache,
      serverInfo: this.#client?.serverInfo,
      protocolVersion: this.#client?.protocolVersion,
    };
  }

  /** Marks the server as unusable until its config is fixed (a bad config entry). */
  markInvalid(error: Error): void {
    this.#failForGood(error);
  }

  /** Starts the run loop (idempotent). */
  start(): void {
    if (this.#running || this.#stop.signal.aborted || !this.#enabled || this.#configError) return;
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

  /**
   * Resolves once the first attempt ended, or when `signal` aborts (the startup gate), but never
   * before the cached tools were read: a gate shorter than that read would otherwise report a
   * server that has cached tools as having none.
   */
  async whenSettled(signal: AbortSignal): Promise<void> {
    await this.#cacheRead.catch(() => undefined);
    return this.#changes.wait(() => this.#settled, signal).catch(() => {});
  }

  /**
   * A ready client, waiting within `timeoutMs` through connecting, deferred, reconnecting, and
   * an open breaker whose probe comes before the deadline. Fails fast when the server is
   * disabled, closed, misconfigured (with its config error), or its breaker stays open past the
   * deadline (CIRCUIT_OPEN); rejects with SERVER_UNAVAILABLE when `timeoutMs` passes first and
   * with `signal.reason` on abort.
   */
  async waitReady(options: { signal?: AbortSignal; timeoutMs: number }): Promise<MCPClient> {
    const deadline = Date.now() + options.timeoutMs;
    const immediate = this.#readyOrFailure(deadline);
    if (immediate instanceof MCPClient) return immediate;
    if (immediate) throw immediate;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      await this.#changes.wait(() => this.#readyOrFailure(deadline) !== undefined, signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new MCPClientError(
        MCPClientErrorCode.ServerUnavailable,
        `server "${this.name}" is not ready after ${options.timeoutMs}ms (state: ${this.#state})`,
        { cause: this.#lastError ?? error, stderrTail: this.#stderrTail },
      );
    }
    const outcome = this.#readyOrFailure(deadline);
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

  #readyOrFailure(deadline: number): MCPClient | Error | undefined {
    if (this.#configError) return this.#configError;
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
    // An open breaker whose probe comes before the caller's deadline is worth waiting for.
    if (
      this.#state === ServerState.Failed &&
      Date.now() + this.#breaker.msUntilAttempt() > deadline
    ) {
      return new MCPClientError(
        MCPClientErrorCode.CircuitOpen,
        `server "${this.name}" failed ${this.#breaker.consecutiveFailures} times in a row; the next attempt is in ${this.#breaker.msUntilAttempt()}ms`,
        { cause: this.#lastError, stderrTail: this.#stderrTail },
      );
    }
    return undefined;
  }

  async #run(): Promise<void> {
    this.#cacheRead = this.#loadCachedTools();
    await this.#cacheRead;
    const stop = this.#stop.signal;
    let everReady = false;
    while (!stop.aborted) {
      if (!this.#breaker.tryAttempt()) {
        this.#retryAt = Date.now() + this.#breaker.msUntilAttempt();
        this.#settled = true;
        this.#setState(ServerState.Failed);
        await this.#pause(this.#breaker.msUntilAttempt() + 1);
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
        everReady = true;
        this.#settled = true;
        this.#setState(ServerState.Ready);
        // Bookkeeping only: it must not keep a host's process alive.
        const stable = setTimeout(() => {
          this.#breaker.recordSuccess();
          this.#attempts = 0;
        }, this.#deps.stableAfterMs).unref();
        lost = await loss;
        clearTimeout(stable);
        this.#loss = undefined;
        if (this.#client === client) this.#client = undefined;
        void client.close().catch(() => {});
      } catch (error) {
        lost = { error: toError(error) };
        if (!stop.aborted && isConfigError(error)) {
          this.#failForGood(lost.error as Error);
          return;
        }
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
      await this.#pause(delay);
    }
  }

  /** Sleeps `ms`, or less when the connection is stopped. */
  #pause(ms: number): Promise<void> {
    return sleep(ms, this.#stop.signal).catch(() => {});
  }

  /** A configuration error: `failed` with that error, no retries, until the config changes. */
  #failForGood(error: Error): void {
    this.#configError = error;
    this.#lastError = error;
    this.#stderrTail = errorStderrTail(error) ?? this.#stderrTail;
    this.#retryAt = undefined;
    this.#settled = true;
    this.#setState(ServerState.Failed);
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

  /** One `state` event per transition: setting the current state again only wakes waiters. */
  #setState(state: ServerState): void {
    const previous = this.#state;
    this.#state = state;
    if (state !== previous) this.#deps.onStatus(this.status, previous);
    this.#changes.check();
  }
}
