import type { Progress } from "@awr/jsonrpc-core";
import { createHttpTransport, type HttpTransport, type SseTransport } from "@awr/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EverythingServer, startEverything } from "./fixtures/everything-server.js";
import { handshake } from "./fixtures/handshake.js";

interface ToolResult {
  content: { type: string; text?: string }[];
}

describe("against @modelcontextprotocol/server-everything over Streamable HTTP", () => {
  let server: EverythingServer;
  let transport: HttpTransport;

  beforeAll(async () => {
    server = await startEverything("streamableHttp");
    transport = createHttpTransport({ url: `${server.base}/mcp`, timeout: 10_000 });
  });
  afterAll(async () => {
    await transport?.close();
    await server?.stop();
    expect(server?.alive()).toBe(false);
  });

  it("initializes with a session and lists its tools", async () => {
    const init = await handshake(transport);
    expect(init.serverInfo.name).toContain("everything");
    expect(transport.sessionId).toBeTruthy();
    const { tools } = await transport.request<{ tools: { name: string }[] }>("tools/list");
    expect(tools.map((tool) => tool.name)).toContain("echo");
  });

  it("calls a tool", async () => {
    const result = await transport.request<ToolResult>("tools/call", {
      name: "echo",
      arguments: { message: "over http" },
    });
    expect(result.content[0]?.text).toContain("over http");
  });

  it("receives progress from a long-running operation", async () => {
    const updates: Progress[] = [];
    await transport.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(updates.map((update) => update.progress)).toEqual([1, 2]);
  });

  it("ends the session on close, after which the old id is refused", async () => {
    const sessionId = transport.sessionId;
    await transport.close();
    const probe = await fetch(`${server.base}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": String(sessionId),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await probe.body?.cancel();
    expect(probe.status).toBe(400);
  });
});

describe("against @modelcontextprotocol/server-everything over legacy HTTP+SSE", () => {
  let server: EverythingServer;
  let transport: SseTransport;

  beforeAll(async () => {
    server = await startEverything("sse");
    transport = createHttpTransport({ url: `${server.base}/sse`, type: "sse", timeout: 10_000 });
  });
  afterAll(async () => {
    await transport?.close();
    await server?.stop();
    expect(server?.alive()).toBe(false);
  });

  it("connects through the endpoint event, then initializes and calls a tool", async () => {
    const init = await handshake(transport, "2024-11-05");
    expect(init.serverInfo.name).toContain("everything");
    const result = await transport.request<ToolResult>("tools/call", {
      name: "echo",
      arguments: { message: "over sse" },
    });
    expect(result.content[0]?.text).toContain("over sse");
  });

  it("rejects with the signal's reason when a call is aborted", async () => {
    const controller = new AbortController();
    const reason = new Error("changed my mind");
    const call = transport.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 } },
      { signal: controller.signal },
    );
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect(transport.request("ping")).resolves.toEqual({});
  });
});
