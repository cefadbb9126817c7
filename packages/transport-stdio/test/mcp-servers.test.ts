import { createStdioTransport, type StdioTransport } from "@awr/transport-stdio";
import { afterEach, describe, expect, it } from "vitest";
import { TransportPool } from "./helpers/misbehaving.js";
import { isRunning, SDK_SERVER, serverEverythingEntry } from "./helpers/processes.js";

const pool = new TransportPool();
afterEach(() => pool.closeAll());

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

/** The MCP handshake, driven by hand: initialize, then notifications/initialized. */
async function handshake(transport: StdioTransport): Promise<{ serverInfo: { name: string } }> {
  await transport.connect();
  const init = await transport.request<{ serverInfo: { name: string }; protocolVersion: string }>(
    "initialize",
    {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "transport-stdio-tests", version: "0.0.0" },
    },
  );
  await transport.notify("notifications/initialized");
  return init;
}

describe("an MCP server built on the official SDK", () => {
  function sdkServer(): StdioTransport {
    return pool.track(
      createStdioTransport({ command: process.execPath, args: [SDK_SERVER], name: "sdk-fixture" }),
    );
  }

  it("answers tool calls and streams progress to the request that asked for it", async () => {
    const transport = sdkServer();
    const init = await handshake(transport);
    expect(init.serverInfo.name).toBe("fixture-sdk-server");
    const echo = await transport.request<ToolResult>("tools/call", {
      name: "echo",
      arguments: { message: "hi" },
    });
    expect(echo.content).toEqual([{ type: "text", text: "hi" }]);
    const progress: number[] = [];
    const counted = await transport.request<ToolResult>(
      "tools/call",
      { name: "count_progress", arguments: { steps: 3 } },
      { onprogress: (update) => progress.push(update.progress) },
    );
    expect(counted.content[0]?.text).toBe("counted to 3");
    expect(progress).toEqual([1, 2, 3]);
  });

  it("delivers a cancellation to the server, which stops the tool", async () => {
    const transport = sdkServer();
    await handshake(transport);
    const controller = new AbortController();
    const slow = transport.request(
      "tools/call",
      { name: "slow", arguments: { ms: 10_000 } },
      { signal: controller.signal },
    );
    const outcome = slow.catch((error: unknown) => error);
    // The server answers in order of arrival for quick tools, so once this returns it holds the slow call.
    await transport.request("tools/call", { name: "echo", arguments: { message: "after slow" } });
    controller.abort(new Error("not needed any more"));
    expect(await outcome).toBe(controller.signal.reason);
    const listed = await transport.request<ToolResult>("tools/call", {
      name: "cancelled_requests",
      arguments: {},
    });
    expect(JSON.parse(listed.content[0]?.text ?? "[]")).toEqual([2]);
  });

  it("leaves no process behind after close", async () => {
    const transport = sdkServer();
    await handshake(transport);
    const pid = transport.pid as number;
    await transport.close();
    expect(isRunning(pid)).toBe(false);
    expect(transport.exitStatus).toEqual({ code: 0, signal: null });
  });
});

describe("@modelcontextprotocol/server-everything over stdio", () => {
  it("initialises, lists its tools and echoes through this transport", async () => {
    const transport = pool.track(
      createStdioTransport({
        command: process.execPath,
        args: [serverEverythingEntry(), "stdio"],
        name: "everything",
      }),
    );
    const init = await handshake(transport);
    expect(init.serverInfo.name).toBeTypeOf("string");
    const { tools } = await transport.request<{ tools: Array<{ name: string }> }>("tools/list", {});
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const echo = await transport.request<ToolResult>("tools/call", {
      name: "echo",
      arguments: { message: "over stdio" },
    });
    expect(echo.isError ?? false).toBe(false);
    expect(echo.content[0]?.text).toContain("over stdio");
    const pid = transport.pid as number;
    await transport.close();
    expect(isRunning(pid)).toBe(false);
  });
});
