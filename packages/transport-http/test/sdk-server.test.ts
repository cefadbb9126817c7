import type { JsonRpcNotification, Progress } from "@awr/jsonrpc-core";
import { createHttpTransport } from "@awr/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, handshake } from "./fixtures/handshake.js";
import { type SdkServer, startSdkServer } from "./fixtures/sdk-server.js";
import { closeTransportsAfterEach } from "./fixtures/transport-suite.js";

interface ToolResult {
  content: { type: string; text: string }[];
}

const modes = [
  { name: "stateful, SSE responses", stateful: true, json: false },
  { name: "stateful, JSON responses", stateful: true, json: true },
  { name: "stateless, SSE responses", stateful: false, json: false },
  { name: "stateless, JSON responses", stateful: false, json: true },
] as const;

describe.each(modes)("against the SDK's Streamable HTTP server ($name)", ({ stateful, json }) => {
  let server: SdkServer;
  const track = closeTransportsAfterEach();

  beforeAll(async () => {
    server = await startSdkServer({ stateful, json });
  });
  afterAll(async () => {
    await server.close();
  });

  const open = (listen = false) =>
    track(createHttpTransport({ url: server.url(), listen, timeout: 5_000 }));

  it("initializes, lists tools and calls one", async () => {
    const transport = open();
    const init = await handshake(transport);
    expect(init.serverInfo.name).toBe("fixture");
    if (stateful) expect(transport.sessionId).toMatch(/[0-9a-f-]{36}/);
    else expect(transport.sessionId).toBeUndefined();

    const { tools } = await transport.request<{ tools: { name: string }[] }>("tools/list");
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["echo", "count", "wait"]),
    );
    const result = await transport.request<ToolResult>("tools/call", {
      name: "echo",
      arguments: { text: "hi" },
    });
    expect(result.content[0]?.text).toBe("hi");
  });

  it("sends the session id and the negotiated protocol version on later requests", async () => {
    const transport = open();
    await handshake(transport);
    await transport.request("tools/list");
    const last = server.requests.at(-1);
    expect(last?.headers["mcp-protocol-version"]).toBe("2025-11-25");
    expect(last?.headers.accept).toBe("application/json, text/event-stream");
    if (stateful) expect(last?.headers["mcp-session-id"]).toBe(transport.sessionId);
  });

  it("delivers progress notifications from the response stream to the request", async () => {
    const transport = open();
    await handshake(transport);
    const updates: Progress[] = [];
    const result = await transport.request<ToolResult>(
      "tools/call",
      { name: "count", arguments: { steps: 3 } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(result.content[0]?.text).toBe("counted 3");
    // JSON responses cannot carry notifications: progress only travels on SSE.
    expect(updates.map((update) => update.progress)).toEqual(json ? [] : [1, 2, 3]);
  });

  it("surfaces a JSON-RPC error object as a JsonRpcError", async () => {
    const transport = open();
    await handshake(transport);
    await expect(transport.request("no/such-method")).rejects.toMatchObject({
      name: "JsonRpcError",
      code: -32601,
      message: expect.stringMatching(/^MCP error -32601: /),
    });
  });

  it("rejects an aborted call with the signal's reason and tells the server", async () => {
    const transport = open();
    await handshake(transport);
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const call = transport.request(
      "tools/call",
      { name: "wait", arguments: {} },
      { signal: controller.signal },
    );
    await eventually(() => server.started.includes("wait"));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    if (stateful) await eventually(() => server.cancelled.length > 0);
    // The connection stays usable after an abort.
    const result = await transport.request<ToolResult>("tools/call", {
      name: "echo",
      arguments: { text: "still here" },
    });
    expect(result.content[0]?.text).toBe("still here");
  });

  if (stateful) {
    it("receives a server notification on the GET listener", async () => {
      const transport = open(true);
      const seen: JsonRpcNotification[] = [];
      transport.onNotification = (notification) => seen.push(notification);
      await handshake(transport);
      await eventually(() => transport.listenerState === "open");
      await server.announce();
      await eventually(() => seen.some((n) => n.method === "notifications/tools/list_changed"));
    });

    it("ends the session with DELETE on close", async () => {
      const transport = open();
      await handshake(transport);
      const sessionId = transport.sessionId;
      await transport.close();
      expect(server.closedSessions).toContain(sessionId);
      expect(transport.sessionId).toBeUndefined();
      await transport.close();
    });
  } else {
    it("disables the GET listener quietly when the server answers 405", async () => {
      const transport = open(true);
      const errors: Error[] = [];
      transport.onError = (error) => errors.push(error);
      await handshake(transport);
      await eventually(() => transport.listenerState === "disabled");
      expect(errors).toEqual([]);
    });
  }
});

describe("resuming a dropped response stream against the SDK server", () => {
  let server: SdkServer;
  beforeAll(async () => {
    server = await startSdkServer({ stateful: true, json: false, retryInterval: 10 });
  });
  afterAll(async () => {
    await server.close();
  });

  it("gets the answer through GET with Last-Event-ID after the server closed the stream", async () => {
    const transport = createHttpTransport({ url: server.url(), timeout: 5_000 });
    try {
      await handshake(transport);
      const updates: Progress[] = [];
      const result = await transport.request<ToolResult>(
        "tools/call",
        { name: "drop", arguments: {} },
        { onprogress: (update) => updates.push(update) },
      );
      expect(result.content[0]?.text).toBe("survived the drop");
      expect(updates.map((update) => update.progress)).toEqual([1]);
      expect(server.events.replays.length).toBeGreaterThan(0);
      const resume = server.requests.find(
        (r) => r.method === "GET" && r.headers["last-event-id"] !== undefined,
      );
      expect(resume?.headers["mcp-session-id"]).toBe(transport.sessionId);
    } finally {
      await transport.close();
    }
  });
});
