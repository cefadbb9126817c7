import { DEFAULT_REQUEST_TIMEOUT_MS } from "@awr/jsonrpc-core";

/** The subset of `fetch` the transport uses; inject one for a custom dispatcher, a proxy or tests. */
export type FetchLike = (input: string | URL, init: RequestInit) => Promise<Response>;

/** How a dropped event stream is retried: exponential backoff with jitter, bounded attempts. */
export interface ReconnectOptions {
  /** Delay before the first retry, in milliseconds (1 000). */
  initialDelayMs: number;
  /** Upper bound of a computed delay, in milliseconds (30 000). */
  maxDelayMs: number;
  /** Growth of the delay per consecutive failure (2). */
  factor: number;
  /** Consecutive failures tolerated before giving up (5). */
  maxRetries: number;
}

/** Backoff defaults for the GET listener and for resuming a dropped response stream. */
export const DEFAULT_RECONNECT: Readonly<ReconnectOptions> = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  factor: 2,
  maxRetries: 5,
});

/** A source of OAuth tokens in the SDK's `OAuthClientProvider.tokens()` shape. */
export interface BearerTokenProvider {
  tokens(): { access_token: string } | undefined | Promise<{ access_token: string } | undefined>;
}

export interface HttpTransportConfig {
  /** The MCP endpoint (Streamable HTTP), or the SSE endpoint in legacy mode. http(s) only. */
  url: string | URL;
  /** `"http"` (default): Streamable HTTP. `"sse"`: the legacy HTTP+SSE transport (2024-11-05). */
  type?: "http" | "sse";
  /** Sent with every request; the protocol's own headers take precedence. */
  headers?: Record<string, string>;
  /** Bearer token, asked for before every HTTP request (so a refreshed token is picked up). */
  getToken?: () => string | undefined | Promise<string | undefined>;
  /** Alternative to `getToken`: an SDK-style provider whose `tokens().access_token` is sent. */
  authProvider?: BearerTokenProvider;
  /** Default request timeout in milliseconds (60 000); also bounds notification POSTs. */
  timeout?: number;
  /** Open the GET listener for server-initiated messages after `notifications/initialized`. */
  listen?: boolean;
  /** Largest response body (JSON) or single SSE event accepted, in bytes (16 MiB). */
  maxBodyBytes?: number;
  /** Backoff for the GET listener and for resuming a dropped response stream. */
  reconnect?: Partial<ReconnectOptions>;
  /** Reconnect the GET listener when it received no byte for this long (120 000; 0 disables). */
  idleTimeoutMs?: number;
  /** Bound on the DELETE that ends the session in `close()` (2 000). */
  closeTimeoutMs?: number;
  /**
   * A fetch implementation to send every request through (a proxy dispatcher, a test double).
   * Default: node:http(s) with a keep-alive agent per transport, which costs far less CPU per
   * request than the global fetch.
   */
  fetch?: FetchLike;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

export interface ResolvedHttpConfig {
  url: URL;
  type: "http" | "sse";
  /** Custom headers with lower-case names, so the protocol's own replace them reliably. */
  headers: Record<string, string>;
  token: (() => Promise<string | undefined>) | undefined;
  timeout: number;
  listen: boolean;
  maxBodyBytes: number;
  reconnect: ReconnectOptions;
  idleTimeoutMs: number;
  closeTimeoutMs: number;
  fetch: FetchLike | undefined;
}

function positiveNumber(name: string, value: unknown, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value < 0 ||
    (!allowZero && value === 0)
  ) {
    throw new TypeError(
      `${name} must be a ${allowZero ? "non-negative" : "positive"} finite number, got ${String(value)}`,
    );
  }
  return value;
}

/** Validates a configuration up front, so mistakes surface at construction with the field named. */
export function resolveHttpConfig(config: HttpTransportConfig): ResolvedHttpConfig {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("the HTTP transport needs a configuration object with a url");
  }
  let url: URL;
  try {
    url = new URL(config.url);
  } catch (error) {
    throw new TypeError(`url is not a valid URL: ${String(config.url)}`, { cause: error });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`url must use http: or https:, got ${url.protocol}`);
  }
  const type = config.type ?? "http";
  if (type !== "http" && type !== "sse") {
    throw new TypeError(`type must be "http" or "sse", got ${JSON.stringify(type)}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (typeof value !== "string") throw new TypeError(`header ${name} must be a string`);
    headers[name.toLowerCase()] = value;
  }
  if (config.getToken !== undefined && typeof config.getToken !== "function") {
    throw new TypeError("getToken must be a function");
  }
  if (config.authProvider !== undefined && typeof config.authProvider?.tokens !== "function") {
    throw new TypeError("authProvider must have a tokens() method");
  }
  if (config.fetch !== undefined && typeof config.fetch !== "function") {
    throw new TypeError("fetch must be a function");
  }
  const reconnectInput = config.reconnect ?? {};
  const reconnect: ReconnectOptions = {
    initialDelayMs: positiveNumber(
      "reconnect.initialDelayMs",
      reconnectInput.initialDelayMs,
      DEFAULT_RECONNECT.initialDelayMs,
      true,
    ),
    maxDelayMs: positiveNumber(
      "reconnect.maxDelayMs",
      reconnectInput.maxDelayMs,
      DEFAULT_RECONNECT.maxDelayMs,
      true,
    ),
    factor: positiveNumber("reconnect.factor", reconnectInput.factor, DEFAULT_RECONNECT.factor),
    maxRetries: positiveNumber(
      "reconnect.maxRetries",
      reconnectInput.maxRetries,
      DEFAULT_RECONNECT.maxRetries,
      true,
    ),
  };
  return {
    url,
    type,
    headers,
    token: tokenSource(config),
    timeout: positiveNumber("timeout", config.timeout, DEFAULT_REQUEST_TIMEOUT_MS),
    listen: config.listen ?? false,
    maxBodyBytes: positiveNumber("maxBodyBytes", config.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    reconnect,
    idleTimeoutMs: positiveNumber(
      "idleTimeoutMs",
      config.idleTimeoutMs,
      DEFAULT_IDLE_TIMEOUT_MS,
      true,
    ),
    closeTimeoutMs: positiveNumber(
      "closeTimeoutMs",
      config.closeTimeoutMs,
      DEFAULT_CLOSE_TIMEOUT_MS,
    ),
    fetch: config.fetch,
  };
}

function tokenSource(config: HttpTransportConfig): ResolvedHttpConfig["token"] {
  const { getToken, authProvider } = config;
  if (getToken) return async () => getToken();
  if (authProvider) return async () => (await authProvider.tokens())?.access_token;
  return undefined;
}
