import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * What the service's connections carry, so that a graceful stop waits only for work in progress.
 * An exchange is a request the handler got, until its response closes (sent, or cut because the
 * client went away). A request whose body has not all arrived is an exchange but not work: nothing
 * has started for it, and a client that sends its body slowly (or never) must not hold the stop.
 * A connection with no exchange (one that never sent a byte, a keep-alive one between requests, a
 * slowloris one still sending its headers) carries no work at all.
 */
export class Connections {
  readonly #sockets = new Set<Socket>();
  /** Exchanges in progress, with their requests. */
  readonly #exchanges = new Map<ServerResponse, IncomingMessage>();
  /** Exchanges per connection (more than one only for pipelined requests). */
  readonly #perSocket = new Map<Socket, number>();
  #waiters: Array<() => void> = [];

  constructor(server: Server) {
    server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
  }

  /** Counts the exchange of `req` until its response closes. */
  track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    this.#exchanges.set(res, req);
    this.#perSocket.set(socket, (this.#perSocket.get(socket) ?? 0) + 1);
    res.once("close", () => {
      this.#exchanges.delete(res);
      const left = (this.#perSocket.get(socket) ?? 1) - 1;
      if (left === 0) this.#perSocket.delete(socket);
      else this.#perSocket.set(socket, left);
      if (this.#exchanges.size === 0) {
        const waiters = this.#waiters;
        this.#waiters = [];
        for (const wake of waiters) wake();
      }
    });
  }

  /**
   * Sheds everything that is not work: `refuse` answers each request whose body has not all
   * arrived and that has no answer yet (it must close the connection), and every connection
   * without an exchange is closed now.
   */
  shed(refuse: (res: ServerResponse) => void): void {
    for (const [res, req] of this.#exchanges) {
      if (!req.complete && !res.headersSent) refuse(res);
    }
    for (const socket of this.#sockets) {
      if (!this.#perSocket.has(socket)) socket.destroy();
    }
  }

  /** Resolves once no exchange is in progress. */
  idle(): Promise<void> {
    if (this.#exchanges.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
