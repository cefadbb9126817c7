import { LocalErrorCode } from "./error-codes.js";
import { createIdAllocator, type IdAllocator } from "./id-allocator.js";
import { BoundedIdSet } from "./internal/bounded-id-set.js";
import { DeadlineTimer } from "./internal/deadline-timer.js";
import { JsonRpcError } from "./json-rpc-error.js";
import { RequestTimeoutError, TransportError } from "./local-errors.js";
import {
  NOTIFICATION_CONTEXT,
  type OutgoingContext,
  type RequestOptions,
  type SendMessage,
} from "./request-options.js";
import type {
  JsonRpcId,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  Progress,
} from "./types.js";

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_QUARANTINE_SIZE = 1024;

export interface CorrelatorOptions {
  /** Hands one message to the wire. Used for requests and for `notifications/cancelled`. */
  send: SendMessage;
  ids?: IdAllocator;
  /** Default per-request timeout in milliseconds. */
  defaultTimeout?: number;
  /** How many cancelled or timed-out ids to remember so their late responses are dropped quietly. */
  quarantineSize?: number;
  /** Receives responses to ids nobody asked for (each one also counted in `stats`). */
  onError?: (error: Error) => void;
}

/** What became of an inbound response. */
export type ResponseDisposition = "matched" | "late" | "unknown";

export interface CorrelatorStats {
  pending: number;
  /** Responses whose id was never sent, or was forgotten: reported through onError. */
  unknownResponses: number;
  /** Responses to cancelled or timed-out requests: dropped quietly. */
  lateResponses: number;
}

const SETTLED = Object.freeze(new Error("the request has settled"));

/**
 * One request in flight, and what its transport learns of its end (the OutgoingContext). The
 * AbortSignal is created only if a transport reads it (an AbortController per request costs
 * measurable CPU on the hot path); `onSettled` is the cheap way to hear of the end.
 */
class PendingRequest implements OutgoingContext {
  readonly requestId: JsonRpcId;
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
  readonly startedAt: number;
  readonly timeout: number;
  readonly maxTotalTimeout: number | undefined;
  readonly resetTimeoutOnProgress: boolean;
  readonly onprogress: ((progress: Progress) => void) | undefined;
  /** When the request times out (a `Date.now()` time), and whether that is the total cap. */
  deadline = 0;
  capFires = false;
  detachAbort: (() => void) | undefined;
  #controller: AbortController | undefined;
  #listeners: ((answered: boolean) => void)[] | undefined;
  #settled = false;
  #answered = false;

  constructor(
    id: JsonRpcId,
    method: string,
    options: RequestOptions,
    timeout: number,
    resolve: (value: unknown) => void,
    reject: (reason: unknown) => void,
  ) {
    this.requestId = id;
    this.method = method;
    this.resolve = resolve;
    this.reject = reject;
    this.startedAt = Date.now();
    this.timeout = timeout;
    this.maxTotalTimeout = options.maxTotalTimeout;
    this.resetTimeoutOnProgress = options.resetTimeoutOnProgress ?? false;
    this.onprogress = options.onprogress;
    this.restartTimeout(this.startedAt);
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#settled && !this.#controller.signal.aborted) this.#controller.abort(SETTLED);
    return this.#controller.signal;
  }

  /** Sets the deadline `timeout` after `now`, never past the `maxTotalTimeout` cap. */
  restartTimeout(now: number): void {
    const cap =
      this.maxTotalTimeout === undefined
        ? Number.POSITIVE_INFINITY
        : this.startedAt + this.maxTotalTimeout;
    this.capFires = cap <= now + this.timeout;
    this.deadline = this.capFires ? cap : now + this.timeout;
  }

  timeoutError(): RequestTimeoutError {
    return this.capFires
      ? new RequestTimeoutError(this.method, this.requestId, this.maxTotalTimeout ?? this.timeout, {
          details: { maxTotalTimeoutMs: this.maxTotalTimeout },
        })
      : new RequestTimeoutError(this.method, this.requestId, this.timeout);
  }

  onSettled(listener: (answered: boolean) => void): void {
    if (this.#settled) {
      listener(this.#answered);
      return;
    }
    this.#listeners ??= [];
    this.#listeners.push(listener);
  }

  settle(answered: boolean): void {
    this.#settled = true;
    this.#answered = answered;
    this.#controller?.abort(SETTLED);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener(answered);
  }
}

/** MCP's handshake request: never cancelled (the 2025-11-25 specification forbids it). */
const UNCANCELLABLE_METHODS = new Set(["initialize"]);

/**
 * Matches responses to requests for one connection: the pending map, per-request timeouts (one
 * timer serves them all, see DeadlineTimer), AbortSignal cancellation (rejecting with
 * `signal.reason` unchanged and telling the peer with `notifications/cancelled`), progress
 * routing, and a bounded quarantine for late responses.
 * Transport-neutral: it only needs a `send` function and to be fed inbound responses.
 */
export class RequestCorrelator {
  readonly #pending = new Map<JsonRpcId, PendingRequest>();
  readonly #deadlines = new DeadlineTimer((now) => this.#expire(now));
  readonly #quarantine: BoundedIdSet;
  readonly #send: SendMessage;
  readonly #ids: IdAllocator;
  readonly #defaultTimeout: number;
  readonly #onError: ((error: Error) => void) | undefined;
  #closedWith: Error | undefined;
  #unknownResponses = 0;
  #lateResponses = 0;

  constructor(options: CorrelatorOptions) {
    this.#send = options.send;
    this.#ids = options.ids ?? createIdAllocator();
    this.#defaultTimeout = options.defaultTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#quarantine = new BoundedIdSet(options.quarantineSize ?? DEFAULT_QUARANTINE_SIZE);
    this.#onError = options.onError;
  }

  get stats(): CorrelatorStats {
    return {
      pending: this.#pending.size,
      unknownResponses: this.#unknownResponses,
      lateResponses: this.#lateResponses,
    };
  }

  isPending(id: JsonRpcId): boolean {
    return this.#pending.has(id);
  }

  /** Sends a request and resolves with its `result`, or rejects with a JsonRpcError or a local error. */
  request<T = unknown>(
    method: string,
    params?: JsonRpcParams,
    options: RequestOptions = {},
  ): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#closedWith) return Promise.reject(this.#closedWith);

    let id: JsonRpcId;
    try {
      id = this.#ids.next();
    } catch (error) {
      return Promise.reject(error);
    }
    const withToken = options.onprogress ? addProgressToken(params, id) : params;
    // One literal per shape: adding `params` afterwards would cost a hidden-class transition.
    const message: JsonRpcRequest =
      withToken === undefined
        ? { jsonrpc: "2.0", id, method }
        : { jsonrpc: "2.0", id, method, params: withToken };

    return new Promise<T>((resolve, reject) => {
      const entry = new PendingRequest(
        id,
        method,
        options,
        options.timeout ?? this.#defaultTimeout,
        resolve as (value: unknown) => void,
        reject,
      );
      this.#pending.set(id, entry);
      this.#deadlines.schedule(entry.deadline);
      if (signal) {
        const onAbort = () => this.#cancel(id, signal.reason, "request aborted by the caller");
        signal.addEventListener("abort", onAbort, { once: true });
        entry.detachAbort = () => signal.removeEventListener("abort", onAbort);
      }
      this.#send(message, entry)?.catch((error: unknown) => {
        this.fail(id, error);
      });
    });
  }

  /** Routes an inbound response. Unknown ids are reported through onError and counted. */
  handleResponse(response: JsonRpcResponse): ResponseDisposition {
    const { id } = response;
    if (id === null) {
      this.#reportUnknown(
        "error" in response
          ? `peer reported an error for a request it could not read: ${response.error.code} ${response.error.message}`
          : "peer sent a response with a null id",
      );
      return "unknown";
    }
    const entry = this.#pending.get(id);
    if (!entry) {
      if (this.#quarantine.has(id)) {
        this.#lateResponses++;
        return "late";
      }
      this.#reportUnknown(`received a response for unknown request id ${JSON.stringify(id)}`);
      return "unknown";
    }
    if ("error" in response)
      this.#settle(id, entry, JsonRpcError.fromObject(response.error), false, true);
    else this.#settle(id, entry, response.result, true, true);
    return "matched";
  }

  /**
   * Routes `notifications/progress` params to the request whose token they carry.
   * Returns false when no pending request owns the token (the caller may surface it elsewhere).
   */
  handleProgress(params: unknown): boolean {
    if (typeof params !== "object" || params === null) return false;
    const { progressToken, progress, total, message } = params as Record<string, unknown>;
    if (
      (typeof progressToken !== "string" && typeof progressToken !== "number") ||
      typeof progress !== "number"
    ) {
      return false;
    }
    const entry = this.#pending.get(progressToken);
    if (!entry?.onprogress) return false;
    if (entry.resetTimeoutOnProgress) {
      entry.restartTimeout(Date.now());
      this.#deadlines.schedule(entry.deadline);
    }
    const update: Progress = { progress };
    if (typeof total === "number") update.total = total;
    if (typeof message === "string") update.message = message;
    try {
      entry.onprogress(update);
    } catch (error) {
      this.#onError?.(error instanceof Error ? error : new Error(String(error)));
    }
    return true;
  }

  /** Rejects one pending request (e.g. its write failed, or its response stream ended empty). */
  fail(id: JsonRpcId, error: unknown): boolean {
    const entry = this.#pending.get(id);
    if (!entry) return false;
    this.#settle(id, entry, error, false);
    return true;
  }

  /** Rejects every pending request with `error`; later requests reject with it at once. */
  close(error?: Error): void {
    this.#closedWith ??=
      error ?? new TransportError(LocalErrorCode.TransportClosed, "Transport closed");
    for (const [id, entry] of this.#pending) this.#settle(id, entry, this.#closedWith, false);
    this.#deadlines.stop();
  }

  /** Times out every request whose deadline passed; returns the earliest deadline left. */
  #expire(now: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const [id, entry] of this.#pending) {
      if (entry.deadline > now) next = Math.min(next, entry.deadline);
      else {
        const error = entry.timeoutError();
        this.#cancel(id, error, error.message);
      }
    }
    return next;
  }

  #cancel(id: JsonRpcId, reason: unknown, why: string): void {
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#settle(id, entry, reason, false);
    this.#quarantine.add(id);
    if (UNCANCELLABLE_METHODS.has(entry.method) || this.#closedWith) return;
    const cancel = {
      jsonrpc: "2.0" as const,
      method: "notifications/cancelled",
      params: { requestId: id, reason: why },
    };
    this.#send(cancel, NOTIFICATION_CONTEXT)?.catch(() => {
      // The peer may already be gone; the request itself has been settled either way.
    });
  }

  #settle(
    id: JsonRpcId,
    entry: PendingRequest,
    value: unknown,
    ok: boolean,
    answered = false,
  ): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#deadlines.idle();
    entry.detachAbort?.();
    entry.settle(answered);
    if (ok) entry.resolve(value);
    else entry.reject(value);
  }

  #reportUnknown(text: string): void {
    this.#unknownResponses++;
    this.#onError?.(new TransportError(LocalErrorCode.ProtocolViolation, text));
  }
}

function addProgressToken(params: JsonRpcParams | undefined, token: JsonRpcId): JsonRpcParams {
  if (Array.isArray(params)) return params;
  const base = (params ?? {}) as Record<string, unknown>;
  const meta =
    typeof base._meta === "object" && base._meta !== null
      ? (base._meta as Record<string, unknown>)
      : {};
  return { ...base, _meta: { ...meta, progressToken: token } };
}
