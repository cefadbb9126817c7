// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` here is .mcp.json syntax under test, not a template literal.
import { MCPClient, MCPClientErrorCode, MCPManager, parseMcpConfig } from "@awr/mcp-client";
import { describe, expect, it } from "vitest";
import { FakeServer } from "./fixtures/fake-server.js";

const clientInfo = { name: "test-host", version: "1.0.0" };

describe("bad input", () => {
  it("rejects unusable callTool arguments before anything is sent", async () => {
    const server = new FakeServer();
    const client = new MCPClient(await server.start(), clientInfo);
    await client.connect();
    const sent = server.requests.length;
    await expect(client.callTool("")).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidArgument,
    });
    await expect(
      client.callTool("x", [1, 2] as unknown as Record<string, unknown>),
    ).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidArgument,
    });
    await expect(client.readResource("")).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidArgument,
    });
    expect(server.requests.length).toBe(sent);
    await client.close();
  });

  it("rejects a client without a usable clientInfo", () => {
    const server = new FakeServer();
    expect(() => new MCPClient(server.clientTransport, { name: "x" } as never)).toThrow(
      /clientInfo/,
    );
  });

  it("reports malformed results as INVALID_RESULT and survives garbage frames", async () => {
    const server = new FakeServer({
      "tools/call": () => "not an object",
      "tools/list": () => ({ tools: "nope" }),
      ping: () => ({}),
    });
    const client = new MCPClient(await server.start(), clientInfo);
    const errors: Error[] = [];
    client.on("error", (error) => errors.push(error));
    await client.connect();
    await expect(client.callTool("x")).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidResult,
    });
    await expect(client.listTools()).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidResult,
    });
    server.clientTransport.deliver("{this is not json");
    server.clientTransport.deliver(JSON.stringify({ jsonrpc: "2.0", id: 999_999, result: {} }));
    await expect.poll(() => errors.length).toBeGreaterThanOrEqual(2);
    await expect(client.ping()).resolves.toEqual({});
    await client.close();
  });

  it("refuses structuredContent that breaks the tool's outputSchema, or is missing", async () => {
    const outputSchema = {
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
    } as const;
    const answers: unknown[] = [
      { content: [], structuredContent: { sum: "three" } },
      { content: [{ type: "text", text: "3" }] },
      { content: [], isError: true },
      { content: [], structuredContent: { sum: 3 } },
    ];
    const server = new FakeServer({
      "tools/list": () => ({
        tools: [{ name: "add", inputSchema: { type: "object" }, outputSchema }],
      }),
      "tools/call": () => answers.shift(),
    });
    const client = new MCPClient(await server.start(), clientInfo);
    await client.connect();
    await client.listTools();
    await expect(client.callTool("add")).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidResult,
      message: expect.stringMatching(/does not match its outputSchema: \/sum must be number/),
    });
    await expect(client.callTool("add")).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidResult,
      message: expect.stringMatching(/returned no structuredContent/),
    });
    await expect(client.callTool("add")).resolves.toMatchObject({ isError: true });
    await expect(client.callTool("add")).resolves.toMatchObject({ structuredContent: { sum: 3 } });
    await client.close();
  });

  it("stops a listing whose server repeats a cursor", async () => {
    const server = new FakeServer({ "tools/list": () => ({ tools: [], nextCursor: "same" }) });
    const client = new MCPClient(await server.start(), clientInfo);
    await client.connect();
    await expect(client.listTools()).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidResult,
    });
    await client.close();
  });

  it("rejects config files without mcpServers and reports bad entries without dropping good ones", () => {
    expect(() => parseMcpConfig({ servers: {} })).toThrow(/mcpServers/);
    const config = parseMcpConfig(
      {
        mcpServers: {
          good: { command: "node" },
          noCommand: { args: ["x"] },
          badType: { type: "ws", url: "ws://x" },
          badUrl: { type: "http", url: "not a url" },
          badArgs: { command: "node", args: "x" },
          unset: { command: "${AWR_TEST_SURELY_UNSET_VAR}" },
          badFilter: { command: "node", tools: { allow: "all" } },
        },
      },
      { env: {} },
    );
    expect(Object.keys(config.servers)).toEqual(["good"]);
    expect(config.problems.map((p) => p.server)).toEqual([
      "noCommand",
      "badType",
      "badUrl",
      "badArgs",
      "unset",
      "badFilter",
    ]);
    expect(config.problems.every((p) => p.error.code === MCPClientErrorCode.InvalidConfig)).toBe(
      true,
    );
    expect(config.problems.find((p) => p.server === "unset")?.error.message).toMatch(
      /AWR_TEST_SURELY_UNSET_VAR/,
    );
  });

  it("the manager refuses unknown tools and servers", async () => {
    const manager = new MCPManager({ servers: {} });
    await expect(manager.callTool("mcp__nobody__nothing")).rejects.toMatchObject({
      code: MCPClientErrorCode.UnknownTool,
    });
    await expect(manager.callServerTool("nobody", "x")).rejects.toMatchObject({
      code: MCPClientErrorCode.UnknownServer,
    });
    await manager.close();
  });
});
