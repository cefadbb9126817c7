import { createTransport, MCPClient, MCPClientErrorCode, MCPManager } from "@awr/mcp-client";
import { HttpTransport, SseTransport } from "@awr/transport-http";
import { StdioTransport } from "@awr/transport-stdio";
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdioConfig } from "./fixtures/everything-server.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const clientInfo = { name: "create-transport-test", version: "1.0.0" };

describe("createTransport", () => {
  it("picks the transport class by type", () => {
    expect(createTransport(everythingStdioConfig())).toBeInstanceOf(StdioTransport);
    expect(createTransport({ type: "http", url: "http://127.0.0.1:1/mcp" })).toBeInstanceOf(
      HttpTransport,
    );
    expect(createTransport({ type: "sse", url: "http://127.0.0.1:1/sse" })).toBeInstanceOf(
      SseTransport,
    );
    expect(() => createTransport({ type: "http", url: "not a url" })).toThrow(
      expect.objectContaining({ code: MCPClientErrorCode.InvalidConfig }),
    );
  });

  it("passes every transport option on: bad values are refused by the transport, named", () => {
    const stdio = everythingStdioConfig();
    for (const [option, value] of [
      ["maxFrameBytes", 0],
      ["killGraceMs", -1],
      ["closeGraceMs", -1],
      ["stderrBufferBytes", 1.5],
      ["inheritEnv", "PATH"],
    ] as const) {
      expect(() => createTransport(stdio, { [option]: value })).toThrow(
        expect.objectContaining({
          code: MCPClientErrorCode.InvalidConfig,
          message: expect.stringContaining(option),
        }),
      );
    }
    const http = { type: "http" as const, url: "http://127.0.0.1:1/mcp" };
    for (const [option, value] of [
      ["maxBodyBytes", 0],
      ["idleTimeoutMs", -1],
      ["closeTimeoutMs", 0],
      ["reconnect", { maxRetries: -1 }],
      ["fetch", "not a function"],
    ] as const) {
      expect(() => createTransport(http, { [option]: value } as never)).toThrow(
        expect.objectContaining({
          code: MCPClientErrorCode.InvalidConfig,
          message: expect.stringContaining(option),
        }),
      );
    }
  });

  it("maxFrameBytes reaches the stdio transport: a larger answer fails its request", async () => {
    const client = new MCPClient(
      createTransport(everythingStdioConfig(), { maxFrameBytes: 4_096, closeGraceMs: 200 }),
      clientInfo,
    );
    cleanups.push(() => client.close());
    await client.connect();
    await expect(client.callTool("echo", { message: "x".repeat(8_000) })).rejects.toMatchObject({
      code: "FRAME_TOO_LARGE",
    });
    await expect(client.callTool("echo", { message: "small" })).resolves.toMatchObject({
      content: [{ text: "Echo: small" }],
    });
  });

  it("inheritEnv reaches the server through the manager's transport options", async () => {
    process.env.AWR_TEST_INHERITED = "passed-on";
    cleanups.push(async () => {
      delete process.env.AWR_TEST_INHERITED;
    });
    const manager = new MCPManager({
      toolCache: false,
      transport: { closeGraceMs: 200, inheritEnv: ["PATH", "AWR_TEST_INHERITED"] },
      servers: {
        plain: everythingStdioConfig(),
        own: { ...everythingStdioConfig(), transport: { inheritEnv: false } },
      },
    });
    cleanups.push(() => manager.close());
    await manager.start({ gateMs: 15_000 });
    const envOf = async (server: string): Promise<Record<string, string>> => {
      const [block] = (await manager.callServerTool(server, "get-env", {})).content;
      return JSON.parse(String(block?.text ?? "{}"));
    };
    expect((await envOf("plain")).AWR_TEST_INHERITED).toBe("passed-on");
    // A server's own transport options override the manager's.
    expect((await envOf("own")).AWR_TEST_INHERITED).toBeUndefined();
  });
});
