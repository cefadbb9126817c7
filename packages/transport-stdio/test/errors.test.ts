import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { createStdioTransport, type StdioTransportConfig } from "@awr/transport-stdio";
import { afterEach, describe, expect, it } from "vitest";
import { TransportPool } from "./helpers/misbehaving.js";
import { isRunning } from "./helpers/processes.js";

const pool = new TransportPool();
afterEach(() => pool.closeAll());

describe("stdio transport errors", () => {
  it("fails to connect with SPAWN_FAILED naming a command that does not exist", async () => {
    const transport = pool.track(
      createStdioTransport({ command: "awr-no-such-command-4711", args: ["--x"] }),
    );
    const error = await transport.connect().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      code: LocalErrorCode.SpawnFailed,
      stderrTail: "",
      details: { command: "awr-no-such-command-4711", errno: "ENOENT" },
    });
    expect((error as Error).message).toContain('command "awr-no-such-command-4711" not found');
    expect(transport.connected).toBe(false);
    await expect(transport.request("ping")).rejects.toMatchObject({
      code: LocalErrorCode.TransportClosed,
    });
  });

  it("names a missing working directory instead of blaming the command", async () => {
    const transport = pool.track(
      createStdioTransport({ command: process.execPath, cwd: "/nonexistent/awr-dir" }),
    );
    await expect(transport.connect()).rejects.toThrow(
      'working directory "/nonexistent/awr-dir" does not exist',
    );
  });

  it("reports a command a wrapper could not find as an exit carrying the wrapper's stderr", async () => {
    const transport = pool.track(
      createStdioTransport({ command: "env", args: ["awr-no-such-command-4711"] }),
    );
    await transport.connect();
    const error = await transport.request("initialize", {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: LocalErrorCode.ProcessExited, details: { exitCode: 127 } });
    expect((error as TransportError).stderrTail).toContain("awr-no-such-command-4711");
    expect((error as Error).message).toContain('server "env" exited with code 127');
  });

  it("rejects pending requests when the server exits early, with the exit code and stderr tail", async () => {
    const transport = pool.misbehaving(["--exit-early=3"]);
    const closed = new Promise<Error | undefined>((resolve) => {
      transport.onClose = (info) => resolve(info.error);
    });
    await transport.connect();
    const error = await transport.request("echo", {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: LocalErrorCode.ProcessExited,
      details: { exitCode: 3, signal: null },
    });
    expect((error as TransportError).stderrTail).toContain(
      "fatal: the fixture was told to fail at startup",
    );
    expect(await closed).toBe(error);
    expect(transport.connected).toBe(false);
  });

  it("rejects every pending request when the server dies in the middle of one", async () => {
    const transport = pool.misbehaving();
    await transport.connect();
    const slow = transport.request("sleep", { ms: 5_000 }).catch((caught: unknown) => caught);
    const fatal = transport
      .request("die", { code: 9, message: "out of memory, probably" })
      .catch((caught: unknown) => caught);
    const [first, second] = await Promise.all([slow, fatal]);
    expect(first).toBe(second);
    expect(first).toMatchObject({ code: LocalErrorCode.ProcessExited, details: { exitCode: 9 } });
    expect((first as Error).message).toContain("out of memory, probably");
    const later = await transport.request("echo").catch((caught: unknown) => caught);
    expect(later).toMatchObject({ code: LocalErrorCode.TransportClosed, cause: first });
    await transport.close();
    expect(isRunning(transport.pid as number)).toBe(false);
  });

  it("rejects the requests whose frames met a broken pipe, all of them, with TRANSPORT_FAILED", async () => {
    const transport = pool.misbehaving();
    await transport.connect();
    await transport.request("close_stdin");
    // The server keeps running with its stdout open, so the failure is the write's own.
    const outcomes = await Promise.all(
      [1, 2, 3].map((index) =>
        transport
          .request("echo", { index }, { timeout: 10_000 })
          .catch((caught: unknown) => caught),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(TransportError);
      expect(outcome).toMatchObject({ code: LocalErrorCode.TransportFailed });
      expect((outcome as Error).message).toContain('cannot write to server "misbehaving"');
    }
    expect(transport.stats.pending).toBe(0);
  });

  it("keeps only a bounded tail of a chatty stderr, and streams all of it to onStderr", async () => {
    const streamed: string[] = [];
    let chatterDone: () => void = () => {};
    const allStreamed = new Promise<void>((resolve) => {
      chatterDone = resolve;
    });
    const transport = pool.misbehaving(["--chatter=200000"], {
      stderrBufferBytes: 1024,
      onStderr: (chunk) => {
        streamed.push(chunk);
        if (streamed.join("").endsWith("chatter done\n")) chatterDone();
      },
    });
    await transport.connect();
    await allStreamed;
    const all = streamed.join("");
    expect(all.length).toBeGreaterThan(200_000);
    expect(all.startsWith("chatter line 1\n")).toBe(true);
    expect(Buffer.byteLength(transport.stderrTail)).toBeLessThanOrEqual(1024);
    expect(transport.stderrTail.endsWith("chatter done\n")).toBe(true);
    expect(all.endsWith(transport.stderrTail)).toBe(true);
  });
});

describe("stdio transport configuration (bad input)", () => {
  const bad: Array<[string, unknown]> = [
    ["an empty command", { command: "" }],
    ["a command that is not a string", { command: 42 }],
    ["args that are not strings", { command: "node", args: ["a", 1] }],
    ["env values that are not strings", { command: "node", env: { A: 1 } }],
    ["a zero frame cap", { command: "node", maxFrameBytes: 0 }],
    ["a fractional frame cap", { command: "node", maxFrameBytes: 1.5 }],
    ["a negative grace", { command: "node", closeGraceMs: -1 }],
    ["a non-numeric timeout", { command: "node", timeout: "soon" }],
    ["an onStderr that is not a function", { command: "node", onStderr: "console" }],
    ["no config at all", undefined],
  ];
  it.each(bad)("throws at construction for %s", (_label, config) => {
    expect(() => createStdioTransport(config as StdioTransportConfig)).toThrow(/stdio transport/);
  });

  it("names the server after its command unless told otherwise", () => {
    expect(createStdioTransport({ command: "/usr/bin/some-server" }).name).toBe("some-server");
    expect(createStdioTransport({ command: "npx", name: "memory" }).name).toBe("memory");
  });
});
