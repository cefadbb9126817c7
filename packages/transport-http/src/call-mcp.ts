import {
  type JsonRpcId,
  type JsonRpcParams,
  type JsonRpcResponse,
  LocalErrorCode,
  type ParsedMessage,
  parseMessage,
  RequestTimeoutError,
  serializeMessage,
  TransportError,
} from "@awr/jsonrpc-core";
import { type FetchLike, resolveHttpConfig } from "./http-transport-config.js";
import { Cancellation } from "./internal/cancellation.js";
import { HttpChannel } from "./internal/http-channel.js";
import type { HttpResponse } from "./internal/http-exchange.js";
import { EVENT_STREAM, mediaTypeOf } from "./internal/media-type.js";
import { noResponse, postMessage } from "./internal/request-response.js";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./package-version.js";

export interface CallMCPOptions {
  /** Milliseconds for the whole call, body included (30 000). */
  timeout?: number;
  /** Aborting rejects with `signal.reason` unchanged. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Sent as `Mcp-Session-Id` (from an earlier `initialize`); a lost session rejects with SessionExpiredError. */
  sessionId?: string;
  /** Sent as `MCP-Protocol-Version`. */
  protocolVersion?: string;
  /** The request id (1); ignored for notifications, which have none. */
  id?: JsonRpcId;
  /** Largest JSON body or SSE event accepted, in bytes (16 MiB). */
  maxBodyBytes?: number;
  fetch?: FetchLike;
}

/**
 * What callMCP returns: the raw JSON-RPC envelope of the answer (`result` or `error`, never
 * thrown) for a request, or `accepted: true` for a notification (`notifications/*`), plus the
 * session id to send with the next call: the one the server assigned (at `initialize`), else
 * the one that was sent.
 */
export type CallMCPResult =
  | (JsonRpcResponse & { sessionId: string | undefined })
  | { jsonrpc: "2.0"; accepted: true; sessionId: string | undefined };

export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

function checkInput(url: string | URL, method: string, options: CallMCPOptions): void {
  if (typeof method !== "string" || method.length === 0)
    throw new TypeError("callMCP: method must be a non-empty string");
  const { timeout } = options;
  if (
    timeout !== undefined &&
    (typeof timeout !== "number" || !(timeout > 0) || !Number.isFinite(timeout))
  ) {
    throw new TypeError(
      `callMCP: timeout must be a positive finite number, got ${String(timeout)}`,
    );
  }
  try {
    new URL(url);
  } catch (error) {
    throw new TypeError(`callMCP: url is not a valid URL: ${String(url)}`, { cause: error });
  }
}

/**
 * One JSON-RPC message over HTTP without a transport, on the same request path as
 * HttpTransport: POSTs it and, for a request, reads the JSON or SSE answer (resuming a dropped
 * stream with `Last-Event-ID` like the transport does). Methods under `notifications/` are sent
 * as notifications (no id). For sessions on a stateful server pass back the returned
 * `sessionId`; {@link initializeMCP} does the handshake. Rejects with HTTP_STATUS /
 * SessionExpiredError, RequestTimeoutError, PROTOCOL_VIOLATION, TRANSPORT_FAILED, or the
 * caller's `signal.reason`.
 */
export async function callMCP(
  url: string | URL,
  method: string,
  params?: JsonRpcParams,
  options: CallMCPOptions = {},
): Promise<CallMCPResult> {
  if (options.signal?.aborted) throw options.signal.reason;
  checkInput(url, method, options);
  const config = resolveHttpConfig({
    url,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const isNotification = method.startsWith("notifications/");
  const id = options.id ?? 1;
  const timeoutMs = options.timeout ?? DEFAULT_CALL_TIMEOUT_MS;
  const channel = new HttpChannel(config);
  channel.protocolVersion = options.protocolVersion;
  const cancel = new Cancellation();
  const stopTimer = cancel.after(timeoutMs, () => new RequestTimeoutError(method, id, timeoutMs));
  const stopFollowing = cancel.follow(options.signal);
  let sessionId = options.sessionId;
  let answer: JsonRpcResponse | undefined;
  let skipped: string | undefined;
  const accept = (parsed: ParsedMessage) => {
    if ((parsed.kind === "result" || parsed.kind === "error") && parsed.message.id === id)
      answer ??= parsed.message;
    else if (parsed.kind === "invalid") skipped ??= parsed.detail;
  };
  try {
    await postMessage(
      channel,
      {
        isPending: () => answer === undefined,
        dispatch: accept,
        receiveData: (data) => {
          const parsed = parseMessage(data, { maxBytes: config.maxBodyBytes });
          accept(parsed);
          return parsed;
        },
        openStream: (lastEventId, streamCancel) =>
          resumeStream(channel, config.url, lastEventId, sessionId, streamCancel),
        serverRetryMs: () => undefined,
        setServerRetryMs: () => {},
        reconnect: config.reconnect,
        maxBodyBytes: config.maxBodyBytes,
      },
      {
        url: config.url,
        body: serializeMessage(
          isNotification
            ? params === undefined
              ? { jsonrpc: "2.0", method }
              : { jsonrpc: "2.0", method, params }
            : params === undefined
              ? { jsonrpc: "2.0", id, method }
              : { jsonrpc: "2.0", id, method, params },
        ),
        requestId: isNotification ? undefined : id,
        sessionId,
        cancel,
        onResponse: (response) => {
          sessionId = response.header("mcp-session-id") ?? sessionId;
        },
      },
    );
    if (isNotification) return { jsonrpc: "2.0", accepted: true, sessionId };
    if (answer) return { ...answer, sessionId };
    throw noResponse(
      id,
      skipped ? `a malformed message was skipped: ${skipped}` : "the body did not answer it",
    );
  } catch (error) {
    if (answer && !isNotification) return { ...answer, sessionId };
    if (cancel.cancelled) throw cancel.reason;
    throw error;
  } finally {
    stopTimer();
    stopFollowing();
    channel.close();
  }
}

async function resumeStream(
  channel: HttpChannel,
  url: URL,
  lastEventId: string,
  sessionId: string | undefined,
  cancel: Cancellation,
): Promise<HttpResponse | "unsupported"> {
  const response = await channel.send(
    { method: "GET", url, accept: EVENT_STREAM, sessionId, lastEventId },
    cancel,
    (status) => status === 405,
  );
  if (response.status === 405 || mediaTypeOf(response) !== EVENT_STREAM) {
    response.discard();
    return "unsupported";
  }
  return response;
}

export interface InitializeMCPOptions extends Omit<CallMCPOptions, "sessionId"> {
  /** Offered in `initialize` (2025-11-25). */
  protocolVersion?: string;
  /** Default: this package's name and version. */
  clientInfo?: { name: string; version: string };
  capabilities?: Record<string, unknown>;
}

export interface InitializeMCPResult {
  /** The server's `initialize` result (protocolVersion, capabilities, serverInfo, …). */
  result: Record<string, unknown>;
  /** Send it with every later callMCP (undefined on a stateless server). */
  sessionId: string | undefined;
  /** The revision the server chose: send it as `protocolVersion` with later calls. */
  protocolVersion: string;
}

/**
 * MCP's handshake in one call: `initialize`, then `notifications/initialized` in the session
 * the server assigned. Resolves with what later callMCP calls need; a JSON-RPC error answer to
 * `initialize` rejects with PROTOCOL_VIOLATION naming it.
 */
export async function initializeMCP(
  url: string | URL,
  options: InitializeMCPOptions = {},
): Promise<InitializeMCPResult> {
  const { clientInfo, capabilities, ...call } = options;
  const offered = options.protocolVersion ?? "2025-11-25";
  const answer = await callMCP(
    url,
    "initialize",
    {
      protocolVersion: offered,
      capabilities: capabilities ?? {},
      clientInfo: clientInfo ?? { name: PACKAGE_NAME, version: PACKAGE_VERSION },
    },
    { ...call, protocolVersion: offered },
  );
  if (!("result" in answer) || typeof answer.result !== "object" || answer.result === null) {
    const detail = "error" in answer ? `${answer.error.code} ${answer.error.message}` : "no result";
    throw new TransportError(LocalErrorCode.ProtocolViolation, `initialize failed: ${detail}`, {
      details: { answer },
    });
  }
  const result = answer.result as Record<string, unknown>;
  const protocolVersion =
    typeof result.protocolVersion === "string" ? result.protocolVersion : offered;
  const { sessionId } = answer;
  await callMCP(url, "notifications/initialized", undefined, {
    ...call,
    protocolVersion,
    ...(sessionId === undefined ? {} : { sessionId }),
  });
  return { result, sessionId, protocolVersion };
}
