import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import type { ResolvedHttpConfig } from "../http-transport-config.js";
import type { Cancellation } from "./cancellation.js";
import { describe } from "./event-stream.js";
import {
  fetchHttpClient,
  type HttpClient,
  type HttpRequest,
  type HttpResponse,
  nodeHttpClient,
} from "./http-exchange.js";
import { httpStatusError } from "./http-status-error.js";

export interface ChannelRequest {
  method: HttpRequest["method"];
  url: URL;
  accept?: string;
  body?: string;
  /** Sent as `Mcp-Session-Id`. */
  sessionId?: string | undefined;
  lastEventId?: string | undefined;
}

/**
 * The one request path of this package (both transports and callMCP): the headers every request
 * carries (custom ones, bearer token, session, protocol version), the HTTP client, and the
 * mapping of failures to typed errors: TRANSPORT_FAILED below HTTP, HTTP_STATUS or
 * SessionExpiredError for non-2xx answers.
 */
export class HttpChannel {
  readonly #config: ResolvedHttpConfig;
  readonly #client: HttpClient;
  protocolVersion: string | undefined;

  constructor(config: ResolvedHttpConfig) {
    this.#config = config;
    this.#client = config.fetch ? fetchHttpClient(config.fetch) : nodeHttpClient();
  }

  /**
   * Sends one request; resolves with a 2xx response (or any response when `acceptStatus` says
   * so), rejects with a typed error otherwise. A cancelled exchange rejects with its reason.
   */
  async send(
    request: ChannelRequest,
    cancel: Cancellation,
    acceptStatus?: (status: number) => boolean,
  ): Promise<HttpResponse> {
    const headers = this.#config.token ? await this.#withToken() : { ...this.#config.headers };
    if (request.accept) headers.accept = request.accept;
    if (request.body !== undefined) headers["content-type"] = "application/json";
    if (request.sessionId !== undefined) headers["mcp-session-id"] = request.sessionId;
    if (request.lastEventId !== undefined) headers["last-event-id"] = request.lastEventId;
    if (this.protocolVersion) headers["mcp-protocol-version"] = this.protocolVersion;
    const outgoing: HttpRequest = { method: request.method, url: request.url, headers };
    if (request.body !== undefined) outgoing.body = request.body;
    let response: HttpResponse;
    try {
      response = await this.#client.send(outgoing, cancel);
    } catch (error) {
      if (cancel.cancelled) throw cancel.reason;
      throw new TransportError(
        LocalErrorCode.TransportFailed,
        `${request.method} ${String(request.url)} failed: ${describe(error)}`,
        { cause: error, details: { method: request.method, url: String(request.url) } },
      );
    }
    if (response.ok || acceptStatus?.(response.status)) return response;
    throw await httpStatusError(response, {
      method: request.method,
      url: request.url,
      sessionId: request.sessionId,
    });
  }

  close(): void {
    this.#client.close();
  }

  async #withToken(): Promise<Record<string, string>> {
    const headers = { ...this.#config.headers };
    let token: string | undefined;
    try {
      token = await this.#config.token?.();
    } catch (error) {
      throw new TransportError(
        LocalErrorCode.TransportFailed,
        `the bearer token provider failed: ${(error as Error)?.message ?? String(error)}`,
        { cause: error },
      );
    }
    if (token) headers.authorization = `Bearer ${token}`;
    return headers;
  }
}
