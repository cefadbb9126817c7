import { createTransport, MCPClient, type ServerConfig, type Tool } from "@awr/mcp-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EverythingHttpServer, everythingStdioConfig } from "./fixtures/everything-server.js";

const clientInfo = { name: "awr-test", version: "1.0.0" };
const roots = [{ uri: "file:///tmp/awr-root", name: "awr-root" }];

/** Tools server-everything registers for every client (its registerTools list). */
const ALWAYS_REGISTERED = [
  "echo",
  "get-annotated-message",
  "get-env",
  "get-resource-links",
  "get-resource-reference",
  "get-structured-content",
  "get-sum",
  "get-tiny-image",
  "gzip-file-as-resource",
  "toggle-simulated-logging",
  "toggle-subscriber-updates",
  "trigger-long-running-operation",
];

let http: EverythingHttpServer;
beforeAll(async () => {
  http = await EverythingHttpServer.start();
});
afterAll(async () => {
  await http?.stop();
});

const transports: Array<[string, () => ServerConfig]> = [
  ["stdio", everythingStdioConfig],
  ["Streamable HTTP", () => ({ type: "http", url: http.url })],
];

describe.each(transports)("server-everything over %s", (_label, config) => {
  let client: MCPClient;
  let tools: Tool[];
  beforeAll(async () => {
    client = new MCPClient(createTransport(config(), { closeGraceMs: 200 }), clientInfo, { roots });
    await client.connect({ timeout: 15_000 });
    tools = await client.listTools();
  });
  afterAll(async () => {
    await client?.close();
  });

  it("has the SDK's helpers: resource templates, subscriptions, completion, logging level, ping", async () => {
    const templates = await client.listResourceTemplates();
    expect(templates.map((template) => template.uriTemplate)).toContain(
      "demo://resource/dynamic/text/{resourceId}",
    );
    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    });
    expect(completion.completion.values).toContain("Engineering");
    await expect(client.setLoggingLevel("warning")).resolves.toBeUndefined();
    const uri = "demo://resource/dynamic/text/1";
    await expect(client.subscribeResource(uri)).resolves.toBeUndefined();
    await expect(client.unsubscribeResource(uri)).resolves.toBeUndefined();
    await expect(client.ping()).resolves.toEqual({});
  });

  it("negotiates 2025-11-25 and sees every tool the server lists, including the roots tool", () => {
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo?.name).toBe("mcp-servers/everything");
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...ALWAYS_REGISTERED, "get-roots-list"]));
    expect(new Set(names).size).toBe(names.length);
    expect(tools.every((tool) => tool.inputSchema?.type === "object")).toBe(true);
  });

  it("echoes, adds, and returns structured content", async () => {
    await expect(client.callTool("echo", { message: "hello" })).resolves.toEqual({
      content: [{ type: "text", text: "Echo: hello" }],
    });
    const sum = await client.callTool("get-sum", { a: 2, b: 40 });
    expect(sum.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("42") });
    const weather = await client.callTool("get-structured-content", { location: "Chicago" });
    expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it("reports progress of a long-running tool", async () => {
    const steps: number[] = [];
    const result = await client.callTool(
      "trigger-long-running-operation",
      { duration: 0.3, steps: 3 },
      { onprogress: (progress) => steps.push(progress.progress) },
    );
    expect(steps).toEqual([1, 2, 3]);
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("completed") });
  });

  it("answers the server's roots/list (the server echoes what it received)", async () => {
    const result = await client.callTool("get-roots-list", {});
    expect(JSON.stringify(result.content)).toContain("file:///tmp/awr-root");
  });

  it("answers invalid arguments with an error result or a protocol error, and stays usable", async () => {
    const outcome = await client.callTool("get-sum", { a: "x" }).then(
      (result) => result.isError,
      (error: unknown) => (error as { code?: unknown }).code,
    );
    expect(outcome === true || outcome === -32602).toBe(true);
    await client.ping();
  });

  it("reads resources and prompts", async () => {
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0];
    if (!first) throw new Error("no resource");
    expect((await client.readResource(first.uri)).contents.length).toBeGreaterThan(0);
    const prompts = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain("simple-prompt");
    expect((await client.getPrompt("simple-prompt")).messages.length).toBeGreaterThan(0);
  });
});

describe("server-everything list_changed (stdio)", () => {
  it("refreshes the cached tools when the server announces a change", async () => {
    // The server registers its roots tool once initialised and announces it with list_changed.
    // (Over HTTP it announces this before any GET stream exists, so only stdio can show it.)
    const client = new MCPClient(
      createTransport(everythingStdioConfig(), { closeGraceMs: 200 }),
      clientInfo,
      {
        roots,
        listChangedDebounceMs: 10,
      },
    );
    const announced = new Promise<void>((resolve) =>
      client.onNotification("notifications/tools/list_changed", () => resolve()),
    );
    const refreshed = new Promise<readonly Tool[]>((resolve) => client.on("toolsChanged", resolve));
    try {
      await client.connect({ timeout: 15_000 });
      await announced;
      const tools = await refreshed;
      expect(tools.map((tool) => tool.name)).toContain("get-roots-list");
      expect(client.tools).toBe(tools);
    } finally {
      await client.close();
    }
  });
});
