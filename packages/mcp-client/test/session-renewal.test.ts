import { createTransport, MCPClient } from "@awr/mcp-client";
import { afterEach, describe, expect, it } from "vitest";
import { FixtureHttpServer } from "./fixtures/fixture-server.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connectedClient(server: FixtureHttpServer): Promise<MCPClient> {
  const client = new MCPClient(createTransport({ type: "http", url: server.url }), {
    name: "renewal-test",
    version: "1.0.0",
  });
  cleanups.push(() => client.close());
  await client.connect();
  return client;
}

describe("MCPClient on an HTTP server that lost its sessions", () => {
  it("initialises again by itself and repeats a read", async () => {
    const server = await FixtureHttpServer.start();
    cleanups.push(() => server.stop());
    const client = await connectedClient(server);
    const before = client.transport.sessionId;
    const renewed = new Promise((resolve) => client.on("reinitialized", resolve));
    await server.restart();
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("add");
    await expect(renewed).resolves.toMatchObject({ protocolVersion: "2025-11-25" });
    expect(client.transport.sessionId).toBeTypeOf("string");
    expect(client.transport.sessionId).not.toBe(before);
  });

  it("renews the session but leaves repeating a tool call to the caller", async () => {
    const server = await FixtureHttpServer.start();
    cleanups.push(() => server.stop());
    const client = await connectedClient(server);
    await server.restart();
    await expect(client.callTool("append", { line: "once" })).rejects.toMatchObject({
      code: "SESSION_EXPIRED",
    });
    await expect(client.callTool("add", { a: 1, b: 2 })).resolves.toMatchObject({
      structuredContent: { sum: 3 },
    });
  });
});
