import { createTransport, MCPClient } from "@awr/mcp-client";
import { SessionExpiredError } from "@awr/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { EverythingHttpServer } from "./fixtures/everything-server.js";
import { FixtureHttpServer } from "./fixtures/fixture-server.js";
import type { HttpServerProcess } from "./fixtures/http-server-process.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * `listen: false` where a test needs the call itself to meet the lost session (the GET listener
 * would otherwise meet it first, some time after the restart, and renew the session in the
 * background).
 */
async function connectedClient(server: HttpServerProcess, listen = true): Promise<MCPClient> {
  const client = new MCPClient(createTransport({ type: "http", url: server.url }, { listen }), {
    name: "renewal-test",
    version: "1.0.0",
  });
  cleanups.push(() => client.close());
  await client.connect();
  // Tool annotations decide which calls may be repeated in a new session.
  await client.listTools();
  return client;
}

async function started(start: () => Promise<HttpServerProcess>): Promise<HttpServerProcess> {
  const server = await start();
  cleanups.push(() => server.stop());
  return server;
}

const NOT_REPEATED = {
  code: "SESSION_EXPIRED",
  message: expect.stringMatching(/was not repeated because the tool is not annotated/),
  details: expect.objectContaining({ renewed: true, repeated: false }),
};

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

  it("404: repeats a read-only tool call in the new session", async () => {
    const server = await started(FixtureHttpServer.start);
    const client = await connectedClient(server, false);
    await server.restart();
    await expect(client.callTool("add", { a: 1, b: 2 })).resolves.toMatchObject({
      structuredContent: { sum: 3 },
    });
  });

  it("404: renews the session but rejects a non-idempotent tool call with the documented error", async () => {
    const server = await started(FixtureHttpServer.start);
    const client = await connectedClient(server, false);
    await server.restart();
    const call = client.callTool("append", { line: "once" });
    await expect(call).rejects.toBeInstanceOf(SessionExpiredError);
    await expect(call).rejects.toMatchObject(NOT_REPEATED);
    await expect(client.callTool("add", { a: 1, b: 2 })).resolves.toMatchObject({
      structuredContent: { sum: 3 },
    });
  });
});

describe("standalone MCPClient when server-everything restarts on the same port (HTTP 400)", () => {
  it("heals by itself: a list and a read-only tool call are repeated in the new session", async () => {
    const server = await started(EverythingHttpServer.start);
    const client = await connectedClient(server);
    const before = client.transport.sessionId;
    await server.restart();
    const sum = await client.callTool("get-sum", { a: 20, b: 22 });
    expect(sum.content[0]).toMatchObject({ text: expect.stringContaining("42") });
    expect(client.transport.sessionId).toBeTypeOf("string");
    expect(client.transport.sessionId).not.toBe(before);
    await server.restart();
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("get-sum");
    expect(client.connected).toBe(true);
  });

  it("rejects an unsafe tool call with SessionExpiredError saying it was not repeated, then works on", async () => {
    const server = await started(EverythingHttpServer.start);
    const client = await connectedClient(server, false);
    await server.restart();
    const call = client.callTool("toggle-simulated-logging", {});
    await expect(call).rejects.toBeInstanceOf(SessionExpiredError);
    await expect(call).rejects.toMatchObject(NOT_REPEATED);
    await expect(client.ping()).resolves.toEqual({});
  });

  it("validates structuredContent against the tool's outputSchema", async () => {
    const server = await started(EverythingHttpServer.start);
    const client = await connectedClient(server);
    const result = await client.callTool("get-structured-content", { location: "New York" });
    expect(result.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });
});
