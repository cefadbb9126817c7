import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { type StdioServer, startStdioServer } from "@awr/awr-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBackend, initFakeProject } from "./support/fake-backend.js";

/**
 * The stdio server's line framing, byte by byte: what it answers to a line it cannot take
 * (not JSON, a batch, the wrong shape, over the size cap, not UTF-8) and that it keeps serving.
 */

const MAX_LINE_BYTES = 10 * 1024 * 1024;

let dir: string;
let server: StdioServer;
let stdin: PassThrough;
let lines: string[];
let wake: (() => void) | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "awr-stdio-lines-"));
  await initFakeProject(dir, "p1");
  stdin = new PassThrough();
  const stdout = new PassThrough();
  lines = [];
  let buffer = "";
  stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    wake?.();
  });
  server = await startStdioServer({ root: dir, backend: fakeBackend(), stdin, stdout });
});

afterEach(async () => {
  await server.close({ graceMs: 100 });
  await rm(dir, { recursive: true, force: true });
});

/** Waits for the next line the server writes (raw, as sent). */
async function nextLine(): Promise<string> {
  while (lines.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  return lines.shift() as string;
}

const refused = (code: number, message: string, id: string | number | null = null) =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

describe("the stdio server's line framing", () => {
  it("answers each line it cannot take with the JSON-RPC error naming the problem", async () => {
    const cases: [string, string][] = [
      ["not json", refused(-32700, "Parse error: the line is not JSON.")],
      ["[]", refused(-32600, "Invalid Request: an empty batch.")],
      [
        '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
        refused(-32600, "Invalid Request: batches are not supported; send one message per line."),
      ],
      [
        '{"jsonrpc":"1.0","id":8,"method":"ping"}',
        refused(-32600, 'Invalid Request: jsonrpc must be "2.0"; got "1.0".', 8),
      ],
      [
        '{"jsonrpc":"2.0","id":null,"method":"ping"}',
        refused(
          -32600,
          "Invalid Request: id must be a string or an integer; MCP does not allow null.",
        ),
      ],
      [
        '{"jsonrpc":"2.0","id":2,"method":"ping","extra":1}',
        refused(
          -32600,
          "Invalid Request: 1 unknown member (their names are not repeated); a message has only jsonrpc, id, method, params, result, error.",
          2,
        ),
      ],
      [
        '{"jsonrpc":"2.0","id":3,"result":5}',
        refused(
          -32600,
          "Invalid Request: not a JSON-RPC 2.0 request, notification or response.",
          3,
        ),
      ],
      [
        "42",
        refused(
          -32600,
          "Invalid Request: the body must be one JSON-RPC 2.0 message (a JSON object); got a number.",
        ),
      ],
    ];
    for (const [line, answer] of cases) {
      stdin.write(`${line}\n`);
      expect({ line, answer: await nextLine() }).toEqual({ line, answer });
    }
  });

  it("skips blank lines, takes CRLF and decodes invalid UTF-8 as replacement characters", async () => {
    stdin.write('\n  \r\n{"jsonrpc":"2.0","id":"a","method":"ping"}\r\n');
    expect(await nextLine()).toBe('{"result":{},"jsonrpc":"2.0","id":"a"}');
    // A byte that is not UTF-8 inside a string becomes U+FFFD; outside one, the line is not JSON.
    stdin.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":"'),
        Buffer.from([0xff]),
        Buffer.from('","method":"ping"}\n'),
      ]),
    );
    expect(await nextLine()).toBe('{"result":{},"jsonrpc":"2.0","id":"\uFFFD"}');
    stdin.write(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("\n")]));
    expect(await nextLine()).toBe(refused(-32700, "Parse error: the line is not JSON."));
  });

  it("refuses a line over the cap as soon as it crosses it, then serves the next line", async () => {
    const head = '{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"';
    stdin.write(head);
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 9; i++) stdin.write(piece);
    // Exactly at the cap, the line not ended: nothing answered yet.
    stdin.write(Buffer.alloc(MAX_LINE_BYTES - 9 * piece.length - head.length, 0x61));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines).toEqual([]);
    // One byte over it, the answer comes before the line ends.
    stdin.write("a");
    expect(await nextLine()).toBe(
      refused(-32600, `Invalid Request: a message over ${MAX_LINE_BYTES} bytes was dropped.`),
    );
    stdin.write(piece);
    stdin.write('"}}\n{"jsonrpc":"2.0","id":10,"method":"ping"}\n');
    expect(await nextLine()).toBe('{"result":{},"jsonrpc":"2.0","id":10}');
    expect(lines).toEqual([]);
  });

  it("refuses a line of exactly one byte over the cap, and takes one at the cap", async () => {
    const head = '{"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":"';
    const tail = '"}}';
    const fill = (bytes: number) => "a".repeat(bytes - head.length - tail.length);
    stdin.write(`${head}${fill(MAX_LINE_BYTES)}${tail}\n`);
    expect(await nextLine()).toBe('{"result":{},"jsonrpc":"2.0","id":11}');
    stdin.write(`${head}${fill(MAX_LINE_BYTES + 1)}${tail}\n`);
    expect(await nextLine()).toBe(
      refused(-32600, `Invalid Request: a message over ${MAX_LINE_BYTES} bytes was dropped.`),
    );
  });
});
