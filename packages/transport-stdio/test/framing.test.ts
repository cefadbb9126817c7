import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { LineDecoder, type OversizedFrame } from "@awr/transport-stdio";
import { afterEach, describe, expect, it } from "vitest";
import { collectErrors, TransportPool } from "./helpers/misbehaving.js";

function decode(chunks: Array<string | Buffer>, maxFrameBytes = 1024) {
  const lines: string[] = [];
  const oversized: OversizedFrame[] = [];
  const decoder = new LineDecoder({
    maxFrameBytes,
    onLine: (line) => lines.push(line),
    onOversized: (frame) => oversized.push(frame),
  });
  for (const chunk of chunks) decoder.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return { lines, oversized, decoder };
}

describe("the line decoder", () => {
  it("splits frames across and within chunks, and accepts \\r\\n line ends", () => {
    const { lines } = decode(['{"a":', '1}\n{"b":2}\r\n{"c"', ":3}\n\n  \r\n"]);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("copies what it keeps, so the caller may reuse its read buffer", () => {
    const lines: string[] = [];
    const decoder = new LineDecoder({
      maxFrameBytes: 1024,
      onLine: (line) => lines.push(line),
      onOversized: () => {},
    });
    const buffer = Buffer.alloc(16);
    const read = (text: string) => decoder.push(buffer.subarray(0, buffer.write(text)));
    read('{"a":1}\n{"b":');
    read('"two"}\n{"c":');
    read("3}\n");
    expect(lines).toEqual(['{"a":1}', '{"b":"two"}', '{"c":3}']);
  });

  it("decodes a multi-byte character split between chunks", () => {
    const bytes = Buffer.from('"héllo ✓"\n');
    const { lines } = decode([bytes.subarray(0, 3), bytes.subarray(3, 12), bytes.subarray(12)]);
    expect(lines).toEqual(['"héllo ✓"']);
  });

  it("holds an unterminated frame until its newline, or until end()", () => {
    const { lines, decoder } = decode(["{}\n", '{"partial":']);
    expect(lines).toEqual(["{}"]);
    expect(decoder.bufferedBytes).toBe(11);
    decoder.push(Buffer.from("true}"));
    decoder.end();
    expect(lines).toEqual(["{}", '{"partial":true}']);
  });

  it("discards a frame over the cap without buffering it, reports its size, and carries on", () => {
    const big = `{"id":1,"result":"${"x".repeat(5000)}"}`;
    const chunks = [
      "{}\n",
      big.slice(0, 700),
      big.slice(700, 3000),
      big.slice(3000),
      '\n{"next":true}\n',
    ];
    const lines: string[] = [];
    const oversized: OversizedFrame[] = [];
    let peak = 0;
    const decoder = new LineDecoder({
      maxFrameBytes: 1024,
      onLine: (line) => lines.push(line),
      onOversized: (frame) => oversized.push(frame),
    });
    for (const chunk of chunks) {
      decoder.push(Buffer.from(chunk));
      peak = Math.max(peak, decoder.bufferedBytes);
    }
    expect(lines).toEqual(["{}", '{"next":true}']);
    expect(oversized).toHaveLength(1);
    expect(oversized[0]?.bytes).toBe(Buffer.byteLength(big));
    expect(oversized[0]?.head.toString()).toBe(big.slice(0, 256));
    expect(oversized[0]?.tail.toString()).toBe(big.slice(-64));
    expect(peak).toBeLessThanOrEqual(1024);
  });

  it("treats a frame of exactly the cap as acceptable", () => {
    const frame = `"${"y".repeat(1022)}"`;
    const { lines, oversized } = decode([`${frame}\n`], 1024);
    expect(lines).toEqual([frame]);
    expect(oversized).toEqual([]);
  });

  it("tells onOverflow once, as soon as a frame crosses the cap, before the frame ends", () => {
    const events: string[] = [];
    const decoder = new LineDecoder({
      maxFrameBytes: 8,
      onLine: (line) => events.push(`line ${line}`),
      onOverflow: () => events.push("overflow"),
      onOversized: (frame) => events.push(`oversized ${frame.bytes}`),
    });
    decoder.push(Buffer.from("12345678"));
    expect(events).toEqual([]);
    decoder.push(Buffer.from("9"));
    expect(events).toEqual(["overflow"]);
    decoder.push(Buffer.from("0123"));
    decoder.push(Buffer.from("4\n{}\n123456789\n"));
    expect(events).toEqual(["overflow", "oversized 14", "line {}", "overflow", "oversized 9"]);
  });
});

const pool = new TransportPool();
afterEach(() => pool.closeAll());

describe("framing over a real process", () => {
  it("skips malformed lines, reports each through onError, and keeps the connection", async () => {
    const transport = pool.misbehaving();
    const errors = collectErrors(transport);
    await transport.connect();
    await expect(transport.request("malformed")).resolves.toEqual({ ok: true });
    await expect(transport.request("echo", { still: "alive" })).resolves.toEqual({
      still: "alive",
    });
    expect(errors.length).toBe(4);
    expect(
      errors.every(
        (error) =>
          error instanceof TransportError && error.code === LocalErrorCode.ProtocolViolation,
      ),
    ).toBe(true);
    expect(transport.stats.malformedMessages).toBe(4);
  });

  it("accepts a response of several MiB under the default cap", async () => {
    const transport = pool.misbehaving();
    await transport.connect();
    const result = await transport.request<{ data: string }>("big", { bytes: 6 * 1024 * 1024 });
    expect(result.data.length).toBe(6 * 1024 * 1024);
  });

  it.each([
    ["with the id first", false],
    ["with the id last, as the MCP SDK writes it", true],
  ])(
    "fails the request whose response is over the cap (%s) with an error naming the server and the size, and survives",
    async (_label, idLast) => {
      const transport = pool.misbehaving([], { maxFrameBytes: 64 * 1024, name: "huge-answers" });
      const errors = collectErrors(transport);
      await transport.connect();
      const error = await transport
        .request("big", { bytes: 200_000, idLast })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TransportError);
      expect(error).toMatchObject({
        code: LocalErrorCode.FrameTooLarge,
        details: { server: "huge-answers", maxFrameBytes: 65_536 },
      });
      const frameBytes = (error as TransportError).details.frameBytes as number;
      expect(frameBytes).toBeGreaterThan(200_000);
      expect((error as Error).message).toContain(
        `server "huge-answers" sent a ${frameBytes}-byte frame, over the 65536-byte limit`,
      );
      expect(errors).toEqual([error]);
      expect(transport.stats.oversizedFrames).toBe(1);
      expect(transport.connected).toBe(true);
      await expect(transport.request("echo", { after: "the big one" })).resolves.toEqual({
        after: "the big one",
      });
    },
  );
});
