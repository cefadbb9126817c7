import type { Readable, Writable } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { invalidMessage } from "../internal/json-rpc-message.js";
import { mentionsProto, shieldPrototypeKeys } from "../internal/prototype-keys.js";

/** A line longer than this is refused whole (the SDK's own stdio limit). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

type ErrorReply = { code: -32700 | -32600; message: string; id: string | number | null };

/**
 * The stdio server transport: one JSON-RPC message per line, as the SDK's, except that a line
 * it cannot take is answered instead of dropped, as JSON-RPC 2.0 asks: not JSON is -32700,
 * a batch (empty or not) or a message of the wrong shape is -32600, with the request's id when
 * it has a usable one. The SDK's transport only reports such lines to `onerror`, so the client
 * would wait forever.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Dropping the rest of an oversized line, up to its newline. */
  #skipping = false;

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    this.#stdin = stdin;
    this.#stdout = stdout;
  }

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onError);
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.#take(chunk.subarray(start, end), true);
      start = end + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start), false);
  };

  #take(piece: Buffer, complete: boolean): void {
    if (!this.#skipping) {
      this.#pending.push(piece);
      this.#pendingBytes += piece.length;
      if (this.#pendingBytes > MAX_LINE_BYTES) {
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#skipping = true;
        this.#reply({
          code: -32600,
          message: `Invalid Request: a message over ${MAX_LINE_BYTES} bytes was dropped.`,
          id: null,
        });
      }
    }
    if (!complete) return;
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    const line = Buffer.concat(this.#pending).toString("utf8").replace(/\r$/, "");
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.trim() !== "") this.#line(line);
  }

  #line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#reply({ code: -32700, message: "Parse error: the line is not JSON.", id: null });
      return;
    }
    if (mentionsProto(line)) shieldPrototypeKeys(value);
    if (Array.isArray(value)) {
      this.#reply({
        code: -32600,
        message:
          value.length === 0
            ? "Invalid Request: an empty batch."
            : "Invalid Request: batches are not supported; send one message per line.",
        id: null,
      });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    // Only a message the SDK's schema refused is examined again, to say what is wrong with it.
    const invalid = invalidMessage(value);
    this.#reply({
      code: -32600,
      message:
        invalid?.message ??
        "Invalid Request: not a JSON-RPC 2.0 request, notification or response.",
      id: invalid?.id ?? null,
    });
  }

  #reply(error: ErrorReply): void {
    const { id, ...rest } = error;
    void this.#write(`${JSON.stringify({ jsonrpc: "2.0", id, error: rest })}\n`);
  }

  #write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(text)) resolve();
      else this.#stdout.once("drain", resolve);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onError);
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.#pending = [];
    this.onclose?.();
  }
}
