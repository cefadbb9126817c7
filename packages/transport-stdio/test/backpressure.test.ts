import { PassThrough, Writable } from "node:stream";
import { LocalErrorCode } from "@awr/jsonrpc-core";
import { WriteQueue } from "@awr/transport-stdio";
import { afterEach, describe, expect, it } from "vitest";
import { TransportPool } from "./helpers/misbehaving.js";

const pool = new TransportPool();
afterEach(() => pool.closeAll());

describe("writing to a slow server", () => {
  it("keeps queued bytes bounded while a producer streams far more than the pipe holds", async () => {
    const transport = pool.misbehaving(["--slow-reader"]);
    await transport.connect();
    const payload = "z".repeat(32 * 1024);
    const messages = 64;
    let peak = 0;
    for (let index = 0; index < messages; index++) {
      const sent = transport.notify("notifications/bulk", { index, payload });
      peak = Math.max(peak, transport.queuedBytes);
      await sent;
    }
    const { count, bytes } = await transport.request<{ count: number; bytes: number }>(
      "notifications",
    );
    expect(count).toBe(messages);
    expect(bytes).toBeGreaterThan(messages * payload.length);
    // One frame waiting plus the stream's own buffer, never the two megabytes sent.
    expect(peak).toBeLessThan(3 * payload.length);
    expect(transport.queuedBytes).toBe(0);
  });

  it("queues concurrent writes in order and accounts for every queued byte", async () => {
    const transport = pool.misbehaving(["--slow-reader"]);
    await transport.connect();
    const payload = "q".repeat(16 * 1024);
    const sends = Array.from({ length: 32 }, (_, index) =>
      transport.notify("notifications/bulk", { index, payload }),
    );
    const frameBytes = Array.from(
      { length: 32 },
      (_, index) =>
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/bulk", params: { index, payload } })
          .length + 1,
    ).reduce((sum, bytes) => sum + bytes, 0);
    expect(transport.queuedBytes).toBeGreaterThan(0);
    expect(transport.queuedBytes).toBeLessThanOrEqual(frameBytes);
    await Promise.all(sends);
    expect(transport.queuedBytes).toBe(0);
    const { indexes } = await transport.request<{ indexes: number[] }>("notifications");
    expect(indexes).toEqual(Array.from({ length: 32 }, (_, index) => index));
  });
});

describe("the write queue", () => {
  it("waits for drain and keeps the order of writes", async () => {
    const received: string[] = [];
    const sink = new Writable({
      highWaterMark: 4,
      write(chunk: Buffer, _encoding, callback) {
        received.push(chunk.toString());
        setTimeout(callback, 1);
      },
    });
    const queue = new WriteQueue(sink, {
      wrapError: (error) => new Error("wrapped", { cause: error }),
    });
    await Promise.all(["one\n", "two\n", "three\n", "four\n"].map((frame) => queue.write(frame)));
    expect(received).toEqual(["one\n", "two\n", "three\n", "four\n"]);
    expect(queue.queuedBytes).toBe(0);
  });

  it("hands the frames of one tick to the stream as one chunk, counting them until then", async () => {
    const chunks: string[] = [];
    const sink = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    });
    const queue = new WriteQueue(sink, { wrapError: (error) => error as Error });
    const frames = ['{"a":1}\n', '{"b":"é"}\n', '{"c":3}\n'];
    const writes = frames.map((frame) => queue.write(frame));
    expect(queue.queuedBytes).toBe(frames.reduce((sum, f) => sum + Buffer.byteLength(f), 0));
    expect(chunks).toEqual([]);
    await Promise.all(writes);
    expect(chunks).toEqual([frames.join("")]);
    expect(queue.queuedBytes).toBe(0);
  });

  it("joins post() frames to the tick's chunk and tells each poster of a broken pipe", async () => {
    const chunks: string[] = [];
    let broken = false;
    const sink = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, callback) {
        chunks.push(chunk);
        callback(broken ? new Error("write EPIPE") : null);
      },
    });
    const queue = new WriteQueue(sink, {
      wrapError: (error) => new Error("pipe broke", { cause: error }),
    });
    const sender = { signal: new AbortController().signal };
    const failures: unknown[] = [];
    queue.post('{"id":1}\n', sender, (error) => failures.push(error));
    const written = queue.write('{"method":"n"}\n');
    queue.post('{"id":2}\n', sender, (error) => failures.push(error));
    await written;
    expect(chunks).toEqual(['{"id":1}\n{"method":"n"}\n{"id":2}\n']);
    expect(failures).toEqual([]);
    broken = true;
    queue.post('{"id":3}\n', sender, (error) => failures.push(error));
    queue.post('{"id":4}\n', sender, (error) => failures.push(error));
    await expect(queue.write('{"method":"n"}\n')).rejects.toThrow("pipe broke");
    expect(failures).toHaveLength(2);
    for (const failure of failures) expect(failure).toBe(queue.failure);
    queue.post('{"id":5}\n', sender, (error) => failures.push(error));
    await expect.poll(() => failures.length).toBe(3);
    expect(failures[2]).toBe(queue.failure);
  });

  it("queues a post() frame while the stream is full and drops it quietly on abort", async () => {
    const stream = new PassThrough({ highWaterMark: 1 });
    const queue = new WriteQueue(stream, { wrapError: (error) => error as Error });
    const first = queue.write("first\n");
    const controller = new AbortController();
    const failures: unknown[] = [];
    queue.post("second\n", controller, (error) => failures.push(error));
    queue.post("third\n", { signal: new AbortController().signal }, (error) =>
      failures.push(error),
    );
    expect(queue.queuedBytes).toBe(Buffer.byteLength("first\nsecond\nthird\n"));
    controller.abort();
    expect(queue.queuedBytes).toBe(Buffer.byteLength("first\nthird\n"));
    const received: string[] = [];
    stream.on("data", (chunk: Buffer) => received.push(chunk.toString()));
    await first;
    await expect.poll(() => received.join("")).toBe("first\nthird\n");
    expect(failures).toEqual([]);
  });

  it("turns a broken pipe into rejected writes, not an uncaught exception", async () => {
    const sink = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, callback) {
        const error = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
        setTimeout(() => callback(error), 1);
      },
    });
    const queue = new WriteQueue(sink, {
      wrapError: (error) =>
        Object.assign(new Error("pipe broke", { cause: error }), {
          code: LocalErrorCode.TransportFailed,
        }),
    });
    const writes = ["a\n", "b\n", "c\n"].map((frame) =>
      queue.write(frame).catch((error: unknown) => error),
    );
    const outcomes = await Promise.all(writes);
    for (const outcome of outcomes)
      expect(outcome).toMatchObject({
        message: "pipe broke",
        code: LocalErrorCode.TransportFailed,
      });
    await expect(queue.write("d\n")).rejects.toThrow("pipe broke");
  });

  it("drops a queued write whose signal aborts before it reaches the stream", async () => {
    const stream = new PassThrough({ highWaterMark: 1 });
    const queue = new WriteQueue(stream, { wrapError: (error) => error as Error });
    const first = queue.write("first\n");
    const controller = new AbortController();
    const second = queue.write("second\n", { signal: controller.signal });
    const request = new AbortController();
    const third = queue.write("third\n", { signal: request.signal, dropQuietly: true });
    controller.abort(new Error("caller gave up"));
    request.abort();
    await expect(second).rejects.toThrow("caller gave up");
    await expect(third).resolves.toBeUndefined();
    stream.resume();
    await first;
    expect(queue.queuedBytes).toBe(0);
  });
});
