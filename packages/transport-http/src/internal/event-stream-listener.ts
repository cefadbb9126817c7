import { LocalErrorCode, sleep, TransportError } from "@awr/jsonrpc-core";
import type { ReconnectOptions } from "../http-transport-config.js";
import { SessionExpiredError } from "../session-expired-error.js";
import { Cancellation } from "./cancellation.js";
import { type EventSourceMessage, isIdleTimeout, readEventStream } from "./event-stream.js";
import type { HttpResponse } from "./http-exchange.js";
import { reconnectDelay } from "./reconnect-delay.js";

/**
 * `idle`: not started. `connecting`/`open`/`waiting`: running (waiting = backing off before a
 * reconnect). `disabled`: the server answered 405 (it offers no GET stream). `stopped`: closed,
 * given up after too many failures, or the session expired.
 */
export type ListenerState = "idle" | "connecting" | "open" | "waiting" | "disabled" | "stopped";

/** What the listener needs from its transport. */
export interface ListenerHost {
  /**
   * Sends the GET (with `Last-Event-ID` when given) and returns the event-stream response, or
   * `"unsupported"` on 405. Throws typed errors for other statuses.
   */
  openStream(
    lastEventId: string | undefined,
    cancel: Cancellation,
  ): Promise<HttpResponse | "unsupported">;
  receive(event: EventSourceMessage): void;
  report(error: Error): void;
  /** The server's latest `retry:` value, shared by all of the transport's streams. */
  serverRetryMs(): number | undefined;
  setServerRetryMs(ms: number): void;
  reconnect: ReconnectOptions;
  idleTimeoutMs: number;
  maxEventBytes: number;
}

/**
 * The standalone GET stream on which a Streamable HTTP server sends requests and notifications
 * unrelated to any request. Reconnects with jittered backoff (or the server's `retry`) and
 * `Last-Event-ID`; an idle watchdog replaces a stream that went silent; gives up after
 * `maxRetries` consecutive failures. Clean ends by the server are not failures.
 */
export class EventStreamListener {
  readonly #host: ListenerHost;
  readonly #controller = new AbortController();
  readonly #cancel = new Cancellation();
  #state: ListenerState = "idle";
  #lastEventId: string | undefined;
  #connections = 0;

  constructor(host: ListenerHost) {
    this.#host = host;
  }

  get state(): ListenerState {
    return this.#state;
  }

  /** True until the listener disabled itself, gave up or was stopped. */
  get active(): boolean {
    return this.#state !== "disabled" && this.#state !== "stopped";
  }

  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** How many times a stream was opened (1 + reconnections). */
  get connections(): number {
    return this.#connections;
  }

  start(): void {
    if (this.#state !== "idle") return;
    this.#state = "connecting";
    void this.#run();
  }

  stop(): void {
    if (this.#state === "disabled") return;
    this.#state = "stopped";
    const stopped = new TransportError(LocalErrorCode.TransportClosed, "listener stopped");
    this.#controller.abort(stopped);
    this.#cancel.cancel(stopped);
  }

  async #run(): Promise<void> {
    const signal = this.#controller.signal;
    const { reconnect } = this.#host;
    let failures = 0;
    while (!signal.aborted) {
      this.#state = "connecting";
      let received = false;
      try {
        const response = await this.#host.openStream(this.#lastEventId, this.#cancel);
        if (response === "unsupported") {
          this.#state = "disabled";
          return;
        }
        this.#state = "open";
        this.#connections++;
        await readEventStream(response, {
          cancel: this.#cancel,
          idleTimeoutMs: this.#host.idleTimeoutMs,
          maxEventBytes: this.#host.maxEventBytes,
          onRetry: (ms) => this.#host.setServerRetryMs(ms),
          onEvent: (event) => {
            received = true;
            failures = 0;
            if (event.id !== undefined) this.#lastEventId = event.id;
            this.#host.receive(event);
          },
        });
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof SessionExpiredError) {
          this.#host.report(error);
          this.#state = "stopped";
          return;
        }
        if (!isIdleTimeout(error)) {
          failures = received ? 1 : failures + 1;
          this.#host.report(error instanceof Error ? error : new Error(String(error)));
        }
        if (failures > reconnect.maxRetries) {
          this.#host.report(
            new TransportError(
              LocalErrorCode.TransportFailed,
              `GET listener gave up after ${failures} consecutive failures`,
              { cause: error },
            ),
          );
          this.#state = "stopped";
          return;
        }
      }
      if (signal.aborted) return;
      this.#state = "waiting";
      const delay = reconnectDelay(Math.max(1, failures), reconnect, this.#host.serverRetryMs());
      try {
        await sleep(delay, signal);
      } catch {
        return;
      }
    }
  }
}
