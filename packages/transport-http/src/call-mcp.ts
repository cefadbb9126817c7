import {
  classifyMessage,
  type JsonRpcId,
  type JsonRpcParams,
  type JsonRpcResponse,
  LocalErrorCode,
  RequestTimeoutError,
  serializeMessage,
  TransportError,
} from "@awr/jsonrpc-core";
import { DEFAULT_MAX_BODY_BYTES, type FetchLike } from "./http-transport-config.js";
import { readBodyText } from "./internal/body-text.js";
import { readEventStream } from "./internal/event-stream.js";
import { fetchFailure } from "./internal/fetch-failure.js";
import { httpStatusError } from "./internal/http-status-error.js";
import { parseJsonBody } from "./internal/json-body.js";
import { linkSignals } from "./internal/linked-signal.js";
import { EVENT_STREAM, mediaTypeOf } from "./internal/media-type.js";
import { noResponse } from "./internal/request-response.js";

export interface CallMCPOptions {
  /** Milliseconds for the whole call, body included (30 000). */
  timeout?: number;
  /** Aborting rejects with `signal.reason` unchanged. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Sent as `Mcp-Session-Id`; a 404 then rejects with SessionExpiredError. */
  sessionId?: string;
  /** Sent as `MCP-Protocol-Version`. */
  protocolVersion?: string;
  /** The request id (1). */
  id?: JsonRpcId;
  /** Largest JSON body or SSE event accepted, in bytes (16 MiB). */
  maxBodyBytes?: number;
  fetch?: FetchLike;
}

export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

function checkInput(url: string | URL, method: string, options: CallMCPOptions): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new TypeError(`callMCP: url is not a valid URL: ${String(url)}`, { cause: error });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(`callMCP: url must use http: or https:, got ${parsed.protocol}`);
  }
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
  return parsed;
}

/**
 * One JSON-RPC request over HTTP without a transport: POSTs it, reads a JSON or SSE answer and
 * returns the raw envelope (`result` or `error`, not thrown). For quick calls to a known server;
 * use HttpTransport for sessions, notifications and server requests. Rejects with HTTP_STATUS /
 * SessionExpiredError, RequestTimeoutError, PROTOCOL_VIOLATION, or the caller's `signal.reason`.
 */
export async function callMCP(
  url: string | URL,
  method: string,
  params?: JsonRpcParams,
  options: CallMCPOptions = {},
): Promise<JsonRpcResponse> {
  if (options.signal?.aborted) throw options.signal.reason;
  const target = checkInput(url, method, options);
  const id = options.id ?? 1;
  const timeoutMs = options.timeout ?? DEFAULT_CALL_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeout = AbortSignal.timeout(timeoutMs);
  const done = new AbortController();
  const linked = linkSignals(
    options.signal ? [timeout, options.signal, done.signal] : [timeout, done.signal],
  );
  const { signal } = linked;
  const headers = new Headers(options.headers);
  headers.set("accept", `application/json, ${EVENT_STREAM}`);
  headers.set("content-type", "application/json");
  if (options.sessionId !== undefined) headers.set("mcp-session-id", options.sessionId);
  if (options.protocolVersion !== undefined)
    headers.set("mcp-protocol-version", options.protocolVersion);
  const body = serializeMessage(
    params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
  );
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));

  try {
    let response: Response;
    try {
      response = await doFetch(target, { method: "POST", headers, body, signal });
    } catch (error) {
      throw signal.aborted ? error : fetchFailure(error, "POST", target);
    }
    if (!response.ok)
      throw await httpStatusError(response, {
        method: "POST",
        url: target,
        sessionId: options.sessionId,
      });
    if (mediaTypeOf(response) === EVENT_STREAM && response.body) {
      let answer: JsonRpcResponse | undefined;
      let skipped: string | undefined;
      await readEventStream(response.body, {
        signal,
        maxEventBytes: maxBodyBytes,
        onEvent(event) {
          if (answer || !event.data || (event.event !== undefined && event.event !== "message"))
            return;
          let value: unknown;
          try {
            value = JSON.parse(event.data);
          } catch (error) {
            skipped = (error as Error).message;
            return;
          }
          const parsed = classifyMessage(value);
          if ((parsed.kind === "result" || parsed.kind === "error") && parsed.message.id === id) {
            answer = parsed.message;
            done.abort();
          }
        },
      }).catch((error: unknown) => {
        if (!answer) throw error;
      });
      if (answer) return answer;
      throw noResponse(
        id,
        skipped ? `the stream ended (a malformed event was skipped: ${skipped})` : undefined,
      );
    }
    return findAnswer(await readBodyText(response, maxBodyBytes), id);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw new RequestTimeoutError(method, id, timeoutMs, { cause: error });
    throw error;
  } finally {
    linked.dispose();
  }
}

function findAnswer(text: string, id: JsonRpcId): JsonRpcResponse {
  const value = parseJsonBody(text, "malformed JSON body", {});
  for (const item of Array.isArray(value) ? value : [value]) {
    const parsed = classifyMessage(item);
    if ((parsed.kind === "result" || parsed.kind === "error") && parsed.message.id === id)
      return parsed.message;
    if (parsed.kind === "invalid") {
      throw new TransportError(
        LocalErrorCode.ProtocolViolation,
        `the body is not a JSON-RPC message: ${parsed.detail}`,
        {
          details: { reason: parsed.reason, body: text.slice(0, 1_000) },
        },
      );
    }
  }
  throw noResponse(id, "the JSON body did not answer it");
}
