import { JsonRpcError } from "@awr/jsonrpc-core";
import { MCPClient, MCPClientErrorCode, type Tool } from "@awr/mcp-client";
import { describe, expect, it } from "vitest";
import { FakeServer } from "./fixtures/fake-server.js";

const clientInfo = { name: "test-host", version: "1.0.0" };

function tool(name: string): Tool {
  return { name, inputSchema: { type: "object" } };
}

async function connected(
  server: FakeServer,
  options: ConstructorParameters<typeof MCPClient>[2] = {},
) {
  const client = new MCPClient(await server.start(), clientInfo, options);
  await client.connect();
  return client;
}

describe("MCPClient handshake", () => {
  it("offers 2025-11-25, then sends notifications/initialized and exposes what the server said", async () => {
    const server = new FakeServer();
    const client = await connected(server);
    const init = server.requests[0];
    expect(init?.method).toBe("initialize");
    expect(init?.params).toMatchObject({
      protocolVersion: "2025-11-25",
      clientInfo,
      capabilities: {},
    });
    await expect
      .poll(() => server.notifications.map((n) => n.method))
      .toEqual(["notifications/initialized"]);
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo).toMatchObject({ name: "fake", version: "1.2.3" });
    expect(client.serverCapabilities).toEqual({ tools: { listChanged: true } });
    expect(client.instructions).toBe("be nice");
    expect(client.connected).toBe(true);
    await client.close();
  });

  it("declares the roots capability only when roots are configured", async () => {
    const server = new FakeServer();
    const client = await connected(server, { roots: [{ uri: "file:///work", name: "work" }] });
    expect(server.requests[0]?.params).toMatchObject({
      capabilities: { roots: { listChanged: true } },
    });
    await client.close();
  });

  it("accepts a server that negotiates down to 2025-06-18 and tells the transport", async () => {
    const server = new FakeServer({
      initialize: () => ({
        protocolVersion: "2025-06-18",
        capabilities: {},
        serverInfo: { name: "old", version: "1" },
      }),
    });
    const transport = await server.start();
    const told: string[] = [];
    Object.assign(transport, { setProtocolVersion: (v: string) => told.push(v) });
    const client = new MCPClient(transport, clientInfo);
    await client.connect();
    expect(client.protocolVersion).toBe("2025-06-18");
    expect(told).toEqual(["2025-06-18"]);
    await client.close();
  });

  it("refuses a protocol version it does not speak, and closes the transport", async () => {
    const server = new FakeServer({
      initialize: () => ({
        protocolVersion: "2024-11-05",
        capabilities: {},
        serverInfo: { name: "ancient", version: "1" },
      }),
    });
    const transport = await server.start();
    const client = new MCPClient(transport, clientInfo);
    await expect(client.connect()).rejects.toMatchObject({
      code: MCPClientErrorCode.UnsupportedProtocolVersion,
      details: { received: "2024-11-05" },
    });
    expect(transport.connected).toBe(false);
    expect(server.notifications).toEqual([]);
  });
});

describe("MCPClient requests", () => {
  it("lists tools across every page", async () => {
    const pages: Record<string, unknown> = {
      "": { tools: [tool("a"), tool("b")], nextCursor: "p2" },
      p2: { tools: [tool("c")], nextCursor: "p3" },
      p3: { tools: [tool("d")] },
    };
    const server = new FakeServer({
      "tools/list": (params) => pages[String(params["cursor"] ?? "")],
    });
    const client = await connected(server);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["a", "b", "c", "d"]);
    expect(client.tools).toEqual(tools);
    await client.close();
  });

  it("returns structuredContent, and resolves tool errors flagged isError instead of throwing", async () => {
    const server = new FakeServer({
      "tools/call": (params) =>
        params["name"] === "fail"
          ? { content: [{ type: "text", text: "nope" }], isError: true }
          : { content: [{ type: "text", text: "ok" }], structuredContent: { sum: 3 } },
    });
    const client = await connected(server);
    await expect(client.callTool("add", { a: 1, b: 2 })).resolves.toEqual({
      content: [{ type: "text", text: "ok" }],
      structuredContent: { sum: 3 },
    });
    expect(server.requests.at(-1)?.params).toEqual({ name: "add", arguments: { a: 1, b: 2 } });
    await expect(client.callTool("fail")).resolves.toMatchObject({ isError: true });
    await client.close();
  });

  it("rejects with the server's JsonRpcError on a protocol error", async () => {
    const server = new FakeServer({
      "tools/call": () => {
        throw JsonRpcError.invalidParams("unknown tool: nope");
      },
    });
    const client = await connected(server);
    const error = await client.callTool("nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32602 });
    await client.close();
  });

  it("delivers progress notifications to onprogress", async () => {
    const server = new FakeServer({
      "tools/call": async (_params, request) => {
        const token = (request.params as { _meta?: { progressToken?: string | number } })._meta
          ?.progressToken;
        for (const step of [1, 2])
          await server.tell("notifications/progress", {
            progressToken: token,
            progress: step,
            total: 2,
          });
        return { content: [] };
      },
    });
    const client = await connected(server);
    const seen: number[] = [];
    await client.callTool("slow", {}, { onprogress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2]);
    await client.close();
  });

  it("pings, lists and reads resources, lists and gets prompts", async () => {
    const server = new FakeServer({
      ping: () => ({}),
      "resources/list": () => ({ resources: [{ uri: "mem://a", name: "a" }] }),
      "resources/read": (params) => ({ contents: [{ uri: params["uri"], text: "hello" }] }),
      "prompts/list": () => ({ prompts: [{ name: "greet" }] }),
      "prompts/get": (params) => ({
        messages: [
          {
            role: "user",
            content: { type: "text", text: `hi ${JSON.stringify(params["arguments"])}` },
          },
        ],
      }),
    });
    const client = await connected(server);
    await client.ping();
    expect(await client.listResources()).toEqual([{ uri: "mem://a", name: "a" }]);
    expect((await client.readResource("mem://a")).contents[0]?.text).toBe("hello");
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(["greet"]);
    const prompt = await client.getPrompt("greet", { who: "you" });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: 'hi {"who":"you"}' });
    await client.close();
  });
});

describe("MCPClient as the server's peer", () => {
  it("answers the server's ping, and roots/list when roots are configured", async () => {
    const server = new FakeServer();
    const client = await connected(server, {
      roots: () => [{ uri: "file:///repo", name: "repo" }],
    });
    await expect(server.ask("ping")).resolves.toEqual({});
    await expect(server.ask("roots/list")).resolves.toEqual({
      roots: [{ uri: "file:///repo", name: "repo" }],
    });
    await client.close();
  });

  it("answers roots/list with method-not-found when no roots are configured", async () => {
    const server = new FakeServer();
    const client = await connected(server);
    await expect(server.ask("roots/list")).rejects.toMatchObject({ code: -32601 });
    await client.close();
  });

  it("routes notifications to typed handlers", async () => {
    const server = new FakeServer();
    const client = await connected(server);
    const logs: string[] = [];
    const off = client.onNotification("notifications/message", (params) =>
      logs.push(`${params.level}:${String(params.data)}`),
    );
    await server.tell("notifications/message", { level: "info", data: "one" });
    await expect.poll(() => logs).toEqual(["info:one"]);
    off();
    await server.tell("notifications/message", { level: "info", data: "two" });
    await server.tell("notifications/message", { level: "info", data: "three" });
    await expect.poll(() => server.serverTransport.sent.length).toBeGreaterThan(2);
    expect(logs).toEqual(["info:one"]);
    await client.close();
  });

  it("refreshes the cached tool list once after a burst of list_changed", async () => {
    let version = 1;
    const server = new FakeServer({ "tools/list": () => ({ tools: [tool(`v${version}`)] }) });
    const client = await connected(server, { listChangedDebounceMs: 20 });
    await client.listTools();
    const changed = new Promise<readonly Tool[]>((resolve) => client.on("toolsChanged", resolve));
    version = 2;
    for (let i = 0; i < 3; i++) await server.tell("notifications/tools/list_changed");
    expect((await changed).map((t) => t.name)).toEqual(["v2"]);
    expect(client.tools?.map((t) => t.name)).toEqual(["v2"]);
    expect(server.methods().filter((m) => m === "tools/list")).toHaveLength(2);
    await client.close();
  });
});

describe("MCPClient close", () => {
  it("is idempotent and makes later calls fail with NOT_CONNECTED", async () => {
    const server = new FakeServer();
    const client = await connected(server);
    const closes: unknown[] = [];
    client.on("close", (info) => closes.push(info));
    await Promise.all([client.close(), client.close()]);
    await client.close();
    expect(client.connected).toBe(false);
    expect(closes).toHaveLength(1);
    await expect(client.callTool("x")).rejects.toMatchObject({
      code: MCPClientErrorCode.NotConnected,
    });
  });

  it("reports a connection the server dropped through the close event", async () => {
    const server = new FakeServer();
    const client = await connected(server);
    const closed = new Promise((resolve) => client.on("close", resolve));
    await server.serverTransport.close();
    await expect(closed).resolves.toMatchObject({ error: expect.any(Error) });
    expect(client.connected).toBe(false);
  });
});
