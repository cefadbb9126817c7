import { CorrelatedTransport, type CorrelatedTransportOptions } from "./correlated-transport.js";
import { LocalErrorCode } from "./error-codes.js";
import { TransportError } from "./local-errors.js";
import type { OutgoingContext } from "./request-options.js";
import { serializeMessage } from "./serializer.js";
import type { JsonRpcMessage } from "./types.js";

/**
 * One end of an in-memory connection. Every message goes through the real serialiser and
 * parser, delivered asynchronously, so tests exercise the same paths as a wire would.
 */
export class LinkedTransport extends CorrelatedTransport {
  peer: LinkedTransport | undefined;
  /** Every frame this end wrote, in order (for assertions). */
  readonly sent: string[] = [];

  protected async openConnection(): Promise<void> {}

  protected async writeMessage(message: JsonRpcMessage, _context: OutgoingContext): Promise<void> {
    const peer = this.peer;
    if (!peer?.connected)
      throw new TransportError(
        LocalErrorCode.TransportClosed,
        "Transport closed: the peer is not connected",
      );
    const frame = serializeMessage(message);
    this.sent.push(frame);
    queueMicrotask(() => peer.deliver(frame));
  }

  protected async closeConnection(): Promise<void> {
    const peer = this.peer;
    if (peer) queueMicrotask(() => peer.peerClosed());
  }

  /** Inject a raw frame as if the peer had written it (for bad-input tests). */
  deliver(frame: string): void {
    if (this.connected) this.receiveText(frame);
  }

  private peerClosed(): void {
    this.connectionLost(
      new TransportError(
        LocalErrorCode.TransportClosed,
        "Transport closed: the peer closed the connection",
      ),
    );
  }
}

/** Two connected in-memory transports. Call `connect()` on both before use. */
export function createLinkedTransportPair(
  options: CorrelatedTransportOptions = {},
): [LinkedTransport, LinkedTransport] {
  const a = new LinkedTransport(options);
  const b = new LinkedTransport(options);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
