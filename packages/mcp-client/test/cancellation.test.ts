import { MCPClient, MCPManager } from "@awr/mcp-client";
import { describe, expect, it } from "vitest";
import { FakeServer } from "./fixtures/fake-server.js";

const clientInfo = { name: "test-host", version: "1.0.0" };

function never(): Promise<never> {
  return new Promise(() => {});
}

describe("cancellation", () => {
  it("rejects an aborted callTool with signal.reason itself, tells the server, and keeps the connection usable", async () => {
    const server = new FakeServer({
      "tools/call": (params) =>
        params["name"] === "hang" ? never() : { content: [{ type: "text", text: "still here" }] },
    });
    const client = new MCPClient(await server.start(), clientInfo);
    await client.connect();
    const controller = new AbortController();
    const reason = new Error("the user pressed escape");
    const call = client.callTool("hang", {}, { signal: controller.signal });
    await expect.poll(() => server.methods()).toContain("tools/call");
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect
      .poll(() => server.notifications.map((n) => n.method))
      .toContain("notifications/cancelled");
    const cancelled = server.notifications.find((n) => n.method === "notifications/cancelled");
    expect(cancelled?.params).toMatchObject({ requestId: server.requests.at(-1)?.id });
    await expect(client.callTool("other")).resolves.toMatchObject({
      content: [{ text: "still here" }],
    });
    await client.close();
  });

  it("rejects at once, without sending anything, when the signal is already aborted", async () => {
    const server = new FakeServer();
    const client = new MCPClient(await server.start(), clientInfo);
    await client.connect();
    const before = server.requests.length;
    const reason = new Error("too late");
    await expect(client.callTool("x", {}, { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    await expect(client.listTools({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(server.requests.length).toBe(before);
    await client.close();
  });

  it("aborting connect() rejects with the reason and closes the transport", async () => {
    const server = new FakeServer({ initialize: () => never() });
    const transport = await server.start();
    const client = new MCPClient(transport, clientInfo);
    const controller = new AbortController();
    const reason = new Error("startup cancelled");
    const connecting = client.connect({ signal: controller.signal });
    await expect.poll(() => server.methods()).toEqual(["initialize"]);
    controller.abort(reason);
    await expect(connecting).rejects.toBe(reason);
    expect(transport.connected).toBe(false);
  });

  it("the manager passes an abort through unchanged while waiting for a server", async () => {
    const server = new FakeServer({ initialize: () => never() });
    const manager = new MCPManager({
      servers: { slow: { command: "unused" } },
      createTransport: () => server.clientTransport,
    });
    await server.start();
    await manager.start({ gateMs: 10 });
    const reason = new Error("give up");
    const controller = new AbortController();
    const call = manager.callServerTool("slow", "anything", {}, { signal: controller.signal });
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await manager.close();
  });
});
