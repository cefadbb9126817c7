import {
  CorrelatedTransport,
  type JsonRpcMessage,
  LocalErrorCode,
  type OutgoingContext,
  type ParsedMessage,
  parseMessage,
  TransportError,
} from "@awr/jsonrpc-core";
import type { ResolvedHttpConfig } from "../http-transport-config.js";
import { Cancellation } from "./cancellation.js";
import type { EventSourceMessage } from "./event-stream.js";
import { HttpChannel } from "./http-channel.js";

/** Why a request's exchange is cancelled once nobody waits for its answer. */
const ABANDONED = Object.freeze(
  new TransportError(LocalErrorCode.RequestCancelled, "the request settled without an answer"),
);

/**
 * What the two HTTP transports share: the resolved config, the request path (HttpChannel), one
 * Cancellation per write (cancelled when its request settles unanswered, when a notification's
 * POST outlives the timeout, and by close()), and the routing of SSE message events.
 */
export abstract class HttpTransportBase extends CorrelatedTransport {
  protected readonly config: ResolvedHttpConfig;
  protected readonly channel: HttpChannel;
  /** Cancelled by close(): the long-lived streams this transport opened. */
  protected readonly lifetime = new Cancellation();
  readonly #inFlight = new Set<Cancellation>();

  constructor(config: ResolvedHttpConfig) {
    super({ timeout: config.timeout, maxMessageBytes: config.maxBodyBytes });
    this.config = config;
    this.channel = new HttpChannel(config);
  }

  get url(): URL {
    return new URL(this.config.url);
  }

  get protocolVersion(): string | undefined {
    return this.channel.protocolVersion;
  }

  setProtocolVersion(version: string): void {
    this.channel.protocolVersion = version;
  }

  /** Sends one message under `cancel`; the base class maps cancellations to the right error. */
  protected abstract send(
    message: JsonRpcMessage,
    context: OutgoingContext,
    cancel: Cancellation,
  ): Promise<void>;

  protected async writeMessage(message: JsonRpcMessage, context: OutgoingContext): Promise<void> {
    if (this.lifetime.cancelled) throw this.closedError();
    const cancel = new Cancellation();
    let stopTimer: (() => void) | undefined;
    let stopFollowing: (() => void) | undefined;
    if (context.requestId !== undefined) {
      // An answered request lets its stream end by itself, so the connection is reused.
      context.onSettled((answered) => {
        if (!answered) cancel.cancel(ABANDONED);
      });
    } else {
      // Anything else we send is bounded here, so a server that never accepts it cannot hang us.
      const timeout = this.config.timeout;
      const what = "method" in message ? message.method : "response";
      stopTimer = cancel.after(
        timeout,
        () =>
          new TransportError(
            LocalErrorCode.RequestTimeout,
            `Notify timeout after ${timeout}ms: ${what}`,
            {
              details: { timeoutMs: timeout },
            },
          ),
      );
      stopFollowing = cancel.follow(context.signal);
    }
    this.#inFlight.add(cancel);
    try {
      await this.send(message, context, cancel);
    } catch (error) {
      if (this.lifetime.cancelled) throw this.closedError();
      if (cancel.cancelled) throw cancel.reason;
      throw error;
    } finally {
      this.#inFlight.delete(cancel);
      stopTimer?.();
      stopFollowing?.();
    }
  }

  protected async closeConnection(): Promise<void> {
    const closed = this.closedError();
    this.lifetime.cancel(closed);
    for (const cancel of this.#inFlight) cancel.cancel(closed);
    await this.endSession();
    this.channel.close();
  }

  /** Ends the server-side session, if the transport has one (before the sockets close). */
  protected async endSession(): Promise<void> {}

  protected receiveEvent(event: EventSourceMessage): void {
    if (!event.data || (event.event !== undefined && event.event !== "message")) return;
    this.receiveData(event.data);
  }

  protected receiveData(data: string): ParsedMessage {
    const parsed = parseMessage(data, { maxBytes: this.config.maxBodyBytes });
    this.dispatch(parsed);
    return parsed;
  }
}
