import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { FetchLike } from "../http-transport-config.js";
import type { Cancellation } from "./cancellation.js";

/** One HTTP request as the transports send it: header names lower-case, a string body. */
export interface HttpRequest {
  method: "GET" | "POST" | "DELETE";
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** The part of a response the transports read, whichever client produced it. */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  /** A header's value (the first one, when repeated), or undefined. */
  header(name: string): string | undefined;
  /**
   * Delivers the body chunk by chunk; resolves at its end, rejects when the connection broke,
   * the exchange was cancelled (with the cancellation's reason) or `onChunk` threw (with what it
   * threw; the rest of the body is dropped). `onChunk` returning false ends the read early: the
   * rest is drained in the background, so the connection can be reused. Call it at most once.
   */
  consume(onChunk: (chunk: Uint8Array) => unknown): Promise<void>;
  /** Drops the body: drains a short one (the connection is reused), closes a stream. */
  discard(): void;
}

/** Sends requests; `cancel` aborts the exchange, the response body included. */
export interface HttpClient {
  send(request: HttpRequest, cancel: Cancellation): Promise<HttpResponse>;
  /** Releases pooled connections. */
  close(): void;
}

/**
 * The default client: node:http(s) with a keep-alive agent of its own, so every exchange of a
 * transport reuses its sockets. Much cheaper per request than `fetch` (no WHATWG streams,
 * Headers or AbortSignal per request).
 */
export function nodeHttpClient(): HttpClient {
  const agents = {
    "http:": new HttpAgent({ keepAlive: true }),
    "https:": new HttpsAgent({ keepAlive: true }),
  };
  return {
    send(request, cancel) {
      return new Promise<HttpResponse>((resolve, reject) => {
        const secure = request.url.protocol === "https:";
        const headers =
          request.body === undefined
            ? request.headers
            : { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) };
        const outgoing = (secure ? httpsRequest : httpRequest)(request.url, {
          method: request.method,
          headers,
          agent: agents[secure ? "https:" : "http:"],
        });
        const detach = cancel.onCancel((reason) => {
          outgoing.destroy(reason instanceof Error ? reason : new Error(String(reason)));
          reject(reason);
        });
        outgoing.once("error", (error) => {
          detach();
          reject(cancel.cancelled ? cancel.reason : error);
        });
        outgoing.once("response", (response) => {
          detach();
          resolve(new NodeResponse(response, cancel));
        });
        outgoing.end(request.body);
      });
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

class NodeResponse implements HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly #response: IncomingMessage;
  readonly #cancel: Cancellation;

  constructor(response: IncomingMessage, cancel: Cancellation) {
    this.#response = response;
    this.#cancel = cancel;
    this.status = response.statusCode ?? 0;
    this.statusText = response.statusMessage ?? "";
    this.ok = this.status >= 200 && this.status < 300;
  }

  header(name: string): string | undefined {
    const value = this.#response.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }

  consume(onChunk: (chunk: Uint8Array) => unknown): Promise<void> {
    const response = this.#response;
    return new Promise<void>((resolve, reject) => {
      let reading = true;
      const detach = this.#cancel.onCancel((reason) => {
        response.destroy();
        reject(reason);
      });
      response.on("data", (chunk: Uint8Array) => {
        if (!reading) return;
        try {
          if (onChunk(chunk) !== false) return;
          reading = false;
          detach();
          resolve();
        } catch (error) {
          detach();
          response.destroy();
          reject(error);
        }
      });
      response.once("end", () => {
        detach();
        resolve();
      });
      // "aborted" is deprecated; a broken connection surfaces as "error" (ECONNRESET) or "close".
      response.once("error", (error) => {
        detach();
        reject(this.#cancel.cancelled ? this.#cancel.reason : error);
      });
      response.once("close", () => {
        detach();
        if (!response.complete)
          reject(this.#cancel.cancelled ? this.#cancel.reason : new Error("socket hang up"));
      });
    });
  }

  discard(): void {
    const response = this.#response;
    if (response.complete || response.destroyed) return;
    // Draining a short body lets the agent reuse the socket; a stream may never end.
    if (/^text\/event-stream/i.test(this.header("content-type") ?? "")) response.destroy();
    else response.resume();
  }
}

/** A client over an injected `fetch` (a proxy dispatcher, a test double, another runtime). */
export function fetchHttpClient(fetchImpl: FetchLike): HttpClient {
  return {
    async send(request, cancel) {
      const response = await fetchImpl(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: cancel.toSignal(),
      });
      return new FetchResponse(response, cancel);
    },
    close() {},
  };
}

class FetchResponse implements HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly #response: Response;
  readonly #cancel: Cancellation;

  constructor(response: Response, cancel: Cancellation) {
    this.#response = response;
    this.#cancel = cancel;
    this.status = response.status;
    this.statusText = response.statusText;
    this.ok = response.ok;
  }

  header(name: string): string | undefined {
    return this.#response.headers.get(name) ?? undefined;
  }

  async consume(onChunk: (chunk: Uint8Array) => unknown): Promise<void> {
    const body = this.#response.body;
    if (!body) return;
    const reader = body.getReader();
    const detach = this.#cancel.onCancel((reason) => {
      reader.cancel(reason).catch(() => {});
    });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (this.#cancel.cancelled) throw this.#cancel.reason;
        if (done) return;
        if (onChunk(value) === false) {
          reader.cancel().catch(() => {});
          return;
        }
      }
    } catch (error) {
      if (this.#cancel.cancelled) throw this.#cancel.reason;
      reader.cancel(error).catch(() => {});
      throw error;
    } finally {
      detach();
    }
  }

  discard(): void {
    this.#response.body?.cancel().catch(() => {});
  }
}
