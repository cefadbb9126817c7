import type { JsonRpcNotification, JsonRpcParams, MCPTransport } from "@awr/jsonrpc-core";
import { MCPClientError, MCPClientErrorCode } from "./client-errors.js";
import { invalidArgument, requireNonEmptyString } from "./internal/argument-checks.js";
import { DebouncedTask } from "./internal/debounced-task.js";
import { readInitializeResult } from "./internal/initialize-result.js";
import { ListenerSet } from "./internal/listener-set.js";
import { checkStructuredContent } from "./internal/output-schema.js";
import { collectPages } from "./internal/paginate.js";
import { expectCompletion, expectResultWithArray, isRecord } from "./internal/result-shapes.js";
import { ServerRequestResponder } from "./internal/server-requests.js";
import {
  isSafeToRepeat,
  isSessionExpired,
  notRepeated,
  SessionRenewal,
} from "./internal/session-renewal.js";
import type {
  CallOptions,
  ConnectOptions,
  MCPClientEvents,
  MCPClientOptions,
  RootsSource,
} from "./mcp-client-options.js";
import type {
  CallToolResult,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  ServerNotificationParams,
  Tool,
} from "./mcp-types.js";
import { LATEST_PROTOCOL_VERSION } from "./protocol-version.js";

type State = "new" | "connecting" | "ready" | "closed";

/** Notification handlers by method: the params (when an object) and the whole notification. */
type NotificationEvents = Record<
  string,
  [params: Record<string, unknown> | undefined, notification: JsonRpcNotification]
>;

const DEFAULT_LIST_CHANGED_DEBOUNCE_MS = 100;

const asIs = (raw: unknown): unknown => raw;

/**
 * An MCP client over any MCPTransport: the handshake, tools, resources, prompts, answers to the
 * server's `ping` and `roots/list`, and notification routing. One client per transport; a
 * transport that closed cannot be reopened, so reconnecting means a new transport and client
 * (MCPManager does that).
 */
export class MCPClient {
  readonly transport: MCPTransport;
  readonly clientInfo: Implementation;
  readonly #options: MCPClientOptions;
  readonly #events = new ListenerSet<MCPClientEvents>((error, event) => {
    // A throwing "error" listener is not reported again, or it would loop.
    if (event !== "error") this.#reportError(error);
  });
  readonly #notificationHandlers = new ListenerSet<NotificationEvents>((error) =>
    this.#reportError(error),
  );
  readonly #serverRequests: ServerRequestResponder;
  #state: State = "new";
  #initialize: InitializeResult | undefined;
  #tools: readonly Tool[] | undefined;
  #toolsByName = new Map<string, Tool>();
  readonly #toolRefresh: DebouncedTask;
  #closing: Promise<void> | undefined;
  readonly #renewal = new SessionRenewal(async () => {
    await this.#handshake(undefined, undefined);
    if (this.#initialize) this.#events.emit("reinitialized", this.#initialize);
  });

  constructor(transport: MCPTransport, clientInfo: Implementation, options: MCPClientOptions = {}) {
    if (
      !isRecord(clientInfo) ||
      typeof clientInfo.name !== "string" ||
      typeof clientInfo.version !== "string"
    ) {
      throw invalidArgument("clientInfo needs a string name and version");
    }
    this.transport = transport;
    this.clientInfo = clientInfo;
    this.#options = options;
    this.#serverRequests = new ServerRequestResponder(options);
    // A burst of `list_changed` costs one `tools/list` sweep after the burst.
    this.#toolRefresh = new DebouncedTask(
      () => this.#refreshTools(),
      options.listChangedDebounceMs ?? DEFAULT_LIST_CHANGED_DEBOUNCE_MS,
    );
  }

  /** Server identity from `initialize`; undefined before `connect()` resolves. */
  get serverInfo(): Implementation | undefined {
    return this.#initialize?.serverInfo;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.#initialize?.capabilities;
  }

  /** The negotiated protocol revision. */
  get protocolVersion(): string | undefined {
    return this.#initialize?.protocolVersion;
  }

  get instructions(): string | undefined {
    return this.#initialize?.instructions;
  }

  /** True after a successful `connect()` until the connection ends. */
  get connected(): boolean {
    return this.#state === "ready" && this.transport.connected;
  }

  /** The last tool list fetched (kept fresh on `list_changed`); undefined before the first. */
  get tools(): readonly Tool[] | undefined {
    return this.#tools;
  }

  on<K extends keyof MCPClientEvents>(
    event: K,
    listener: (...args: MCPClientEvents[K]) => void,
  ): () => void {
    return this.#events.on(event, listener);
  }

  /** Subscribes to one notification method; returns the unsubscribe function. */
  onNotification<M extends keyof ServerNotificationParams>(
    method: M,
    handler: (params: ServerNotificationParams[M], notification: JsonRpcNotification) => void,
  ): () => void;
  onNotification(
    method: string,
    handler: (
      params: Record<string, unknown> | undefined,
      notification: JsonRpcNotification,
    ) => void,
  ): () => void;
  onNotification(
    method: string,
    handler: (...args: NotificationEvents[string]) => void,
  ): () => void {
    return this.#notificationHandlers.on(method, handler);
  }

  /**
   * Opens the transport, runs `initialize` (offering the latest revision), checks the server's
   * revision, tells the transport, and sends `notifications/initialized`. Any failure closes
   * the transport; an abort rejects with `signal.reason` unchanged.
   */
  async connect(options: ConnectOptions = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) throw signal.reason;
    if (this.#state !== "new") {
      throw invalidArgument(`connect() was already called (state: ${this.#state})`);
    }
    this.#state = "connecting";
    this.#wireTransport();
    try {
      await this.transport.connect(signal ? { signal } : {});
      await this.#handshake(signal, options.timeout);
      if (this.#state !== "connecting") throw this.#notConnected();
      this.#state = "ready";
    } catch (error) {
      await this.close();
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }

  /** `ping`; resolves with the server's (empty) result once it answered, as the SDK does. */
  async ping(options: CallOptions = {}): Promise<Record<string, unknown>> {
    const result = await this.request("ping", undefined, options);
    return isRecord(result) ? result : {};
  }

  /** Every tool, following `nextCursor` across pages; also refreshes {@link tools}. */
  async listTools(options: CallOptions = {}): Promise<Tool[]> {
    const tools = await this.#listAll<Tool>("tools/list", "tools", options);
    this.#tools = tools;
    // The first of duplicate names wins, as a search of the list would find it.
    this.#toolsByName = new Map(tools.toReversed().map((tool) => [tool.name, tool]));
    this.#events.emit("toolsChanged", tools);
    return tools;
  }

  /**
   * Calls a tool. Resolves with every answer, including `isError: true` results (the tool ran
   * and failed); rejects on protocol errors (JsonRpcError), transport failures, timeouts, and
   * with `signal.reason` itself on abort (the server is sent `notifications/cancelled` and the
   * connection stays usable). When the listed tool has an `outputSchema`, a successful result
   * must carry `structuredContent` that conforms to it (INVALID_RESULT otherwise).
   */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    if (typeof name !== "string" || name.length === 0)
      return Promise.reject(invalidArgument("callTool needs a non-empty tool name"));
    if (args !== undefined && !isRecord(args))
      return Promise.reject(invalidArgument(`callTool("${name}"): arguments must be an object`));
    return this.#send("tools/call", { name, arguments: args ?? {} }, options, (raw) => {
      const result = expectResultWithArray<CallToolResult>("tools/call", raw, "content");
      const tool = this.#toolsByName.get(name);
      const checking = tool && checkStructuredContent(tool, result);
      return checking ? checking.then(() => result) : result;
    });
  }

  async listResources(options: CallOptions = {}): Promise<Resource[]> {
    return this.#listAll<Resource>("resources/list", "resources", options);
  }

  async readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    requireNonEmptyString(uri, "readResource needs a non-empty uri");
    const raw = await this.request("resources/read", { uri }, options);
    return expectResultWithArray<ReadResourceResult>("resources/read", raw, "contents");
  }

  async listResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    return this.#listAll<ResourceTemplate>(
      "resources/templates/list",
      "resourceTemplates",
      options,
    );
  }

  /** `resources/subscribe`: the server then sends `notifications/resources/updated` for `uri`. */
  async subscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    requireNonEmptyString(uri, "subscribeResource needs a non-empty uri");
    await this.request("resources/subscribe", { uri }, options);
  }

  async unsubscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    requireNonEmptyString(uri, "unsubscribeResource needs a non-empty uri");
    await this.request("resources/unsubscribe", { uri }, options);
  }

  /** `completion/complete`: suggestions for a prompt's or resource template's argument. */
  async complete(params: CompleteParams, options: CallOptions = {}): Promise<CompleteResult> {
    if (!isRecord(params) || !isRecord(params.ref) || !isRecord(params.argument)) {
      throw invalidArgument("complete needs { ref, argument: { name, value } }");
    }
    const raw = await this.request("completion/complete", params, options);
    return expectCompletion(raw);
  }

  /** `logging/setLevel`: the least severe `notifications/message` level the server sends. */
  async setLoggingLevel(level: LoggingLevel, options: CallOptions = {}): Promise<void> {
    requireNonEmptyString(level, "setLoggingLevel needs a level (debug … emergency)");
    await this.request("logging/setLevel", { level }, options);
  }

  async listPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    return this.#listAll<Prompt>("prompts/list", "prompts", options);
  }

  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    requireNonEmptyString(name, "getPrompt needs a non-empty prompt name");
    const params = args === undefined ? { name } : { name, arguments: args };
    const raw = await this.request("prompts/get", params, options);
    return expectResultWithArray<GetPromptResult>("prompts/get", raw, "messages");
  }

  /**
   * Any request, for methods without a helper; applies the client's default timeout. When the
   * HTTP session was lost (see `renewExpiredSessions`), the client initialises a new session
   * and repeats the request if it is safe to: anything but `tools/call`, and tools annotated
   * `readOnlyHint` or `idempotentHint`. Other tool calls reject with a SessionExpiredError that
   * says the call was not repeated.
   */
  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options: CallOptions = {},
  ): Promise<T> {
    return this.#send(method, params, options, asIs as (raw: unknown) => T);
  }

  /**
   * Sends one request and maps its result with `read`. The usual path costs one promise on top
   * of the transport's: every call goes through here, so it stays lean.
   */
  #send<T>(
    method: string,
    params: JsonRpcParams | undefined,
    options: CallOptions,
    read: (raw: unknown) => T | Promise<T>,
  ): Promise<T> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    if (this.#state !== "ready") return Promise.reject(this.#notConnected());
    const requestOptions = this.#requestOptions(options);
    if (this.#renewal.lost)
      return this.#renewal.renew().then(() => this.#send(method, params, options, read));
    try {
      return this.transport
        .request(method, params, requestOptions)
        .then(read, (error: unknown) =>
          this.#afterFailure(error, method, params, requestOptions).then(read),
        );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * A request failed. When the HTTP session was lost, the client initialises a new one and
   * repeats the request if it is safe to: the server never ran it (it did not know the
   * session), but a tool call is only repeated for tools that say it is harmless.
   */
  async #afterFailure(
    error: unknown,
    method: string,
    params: JsonRpcParams | undefined,
    options: CallOptions,
  ): Promise<unknown> {
    if (!this.#renews(error) || options.signal?.aborted) throw error;
    await this.#renewal.renew();
    if (!isSafeToRepeat(method, params, this.#tools)) throw notRepeated(error, params);
    return this.transport.request(method, params, options);
  }

  /** Replaces the roots and tells the server (`notifications/roots/list_changed`). */
  async setRoots(roots: RootsSource, options: { signal?: AbortSignal } = {}): Promise<void> {
    if (options.signal?.aborted) throw options.signal.reason;
    this.#serverRequests.setRoots(roots);
    if (this.#state === "ready")
      await this.transport.notify("notifications/roots/list_changed", undefined, options);
  }

  /** Closes the transport (HTTP: DELETE; stdio: the process is stopped). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#state = "closed";
      this.#toolRefresh.cancel();
      await this.transport.close();
    })();
    return this.#closing;
  }

  /** `initialize` (offering the latest revision), version check, `notifications/initialized`. */
  async #handshake(signal: AbortSignal | undefined, timeout: number | undefined): Promise<void> {
    const raw = await this.transport.request(
      "initialize",
      {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: this.#serverRequests.capabilities(),
        clientInfo: this.clientInfo,
      },
      this.#requestOptions({ signal, timeout }),
    );
    const result = readInitializeResult(raw);
    this.transport.setProtocolVersion?.(result.protocolVersion);
    this.#initialize = result;
    await this.transport.notify("notifications/initialized", undefined, signal ? { signal } : {});
  }

  /** Whether this client renews the session `error` reports lost. */
  #renews(error: unknown): error is Parameters<typeof notRepeated>[0] {
    return (
      this.#options.renewExpiredSessions !== false &&
      this.#state === "ready" &&
      isSessionExpired(error)
    );
  }

  #wireTransport(): void {
    const transport = this.transport;
    transport.onNotification = (notification) => this.#dispatchNotification(notification);
    transport.onRequest = (request) => this.#serverRequests.answer(request);
    transport.onError = (error) => {
      // The GET listener met the lost session first: renew now, so server messages resume.
      if (this.#renews(error)) this.#renewal.renew().catch(() => {});
      this.#reportError(error);
    };
    transport.onClose = (info) => {
      this.#state = "closed";
      this.#toolRefresh.cancel();
      this.#events.emit("close", info);
    };
  }

  #requestOptions(options: CallOptions): CallOptions {
    const timeout = this.#options.requestTimeout;
    // A copy only when the client's default has to be added: this runs on every call.
    return options.timeout !== undefined || timeout === undefined
      ? options
      : { ...options, timeout };
  }

  #listAll<T>(method: string, field: string, options: CallOptions): Promise<T[]> {
    return collectPages<T>(method, field, (params) => this.request(method, params, options));
  }

  #dispatchNotification(notification: JsonRpcNotification): void {
    if (notification.method === "notifications/tools/list_changed" && this.#state !== "closed") {
      this.#toolRefresh.schedule();
    }
    const params = isRecord(notification.params) ? notification.params : undefined;
    this.#notificationHandlers.emit(notification.method, params, notification);
    this.#events.emit("notification", notification);
  }

  async #refreshTools(): Promise<void> {
    if (this.#state !== "ready") return;
    try {
      await this.listTools();
    } catch (error) {
      if (this.#state === "ready") this.#reportError(error);
    }
  }

  #reportError(error: unknown): void {
    this.#events.emit("error", error instanceof Error ? error : new Error(String(error)));
  }

  #notConnected(): MCPClientError {
    return new MCPClientError(
      MCPClientErrorCode.NotConnected,
      this.#state === "closed"
        ? "the client is closed"
        : "the client is not connected: call connect() first",
    );
  }
}
