import type { Readable, Writable } from "node:stream";
import {
  type InvalidMessage,
  InvalidReason,
  JsonRpcErrorCode,
  type JsonRpcMessage,
  serializeMessage,
} from "@awr/jsonrpc-core";
import { LineDecoder } from "@awr/transport-stdio";
import { errorResponse, invalidMessage, readJson, refusal } from "../internal/json-rpc-message.js";
import { type JSONRPCMessage, readSdkMessage, type Transport } from "../sdk/mcp-sdk.js";

/** A line longer than this is refused whole (the SDK's own stdio limit). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

const OVERSIZED = refusal(
  InvalidReason.Oversized,
  `a message over ${MAX_LINE_BYTES} bytes was dropped.`,
  null,
  // -32600, not the -32700 of unreadable text: the line may well be JSON, it is only too long.
  JsonRpcErrorCode.InvalidRequest,
);

/**
 * The stdio server transport: one JSON-RPC message per line, framed by the same decoder as the
 * client's stdio transport, except that a line it cannot take is answered instead of dropped, as
 * JSON-RPC 2.0 asks: not JSON is -32700, a batch (empty or not) or a message of the wrong shape is
 * -32600, with the request's id when it has a usable one, and a line over MAX_LINE_BYTES is
 * answered the moment it crosses the cap. The SDK's own stdio transport only reports such lines to
 * `onerror`, so the client would wait forever. A last line without a newline at the end of input
 * is dropped, as a line still being written.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  #decoder = this.#newDecoder();

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    this.#stdin = stdin;
    this.#stdout = stdout;
  }

  #newDecoder(): LineDecoder {
    return new LineDecoder({
      maxFrameBytes: MAX_LINE_BYTES,
      onLine: (line) => this.#line(line),
      onOverflow: () => this.#refuse(OVERSIZED),
      // Already answered when it crossed the cap.
      onOversized: () => {},
    });
  }

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onError);
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer) => this.#decoder.push(chunk);

  #line(line: string): void {
    const read = readJson(line, "line");
    if (read.kind === "invalid") {
      this.#refuse(read);
      return;
    }
    const message = readSdkMessage(read.value);
    if (message !== undefined) {
      this.onmessage?.(message);
      return;
    }
    // Only a message the SDK's schema refused is examined again, to say what is wrong with it.
    this.#refuse(
      invalidMessage(read.value, "line") ??
        refusal(InvalidReason.BadShape, "not a JSON-RPC 2.0 request, notification or response."),
    );
  }

  #refuse(invalid: InvalidMessage): void {
    void this.#write(errorResponse(invalid));
  }

  #write(message: JsonRpcMessage): Promise<void> {
    const line = `${serializeMessage(message)}\n`;
    return new Promise((resolve) => {
      if (this.#stdout.write(line)) resolve();
      else this.#stdout.once("drain", resolve);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message as JsonRpcMessage);
  }

  async close(): Promise<void> {
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onError);
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.#decoder = this.#newDecoder();
    this.onclose?.();
  }
}
