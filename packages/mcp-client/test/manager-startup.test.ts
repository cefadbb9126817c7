// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` here is .mcp.json syntax under test, not a template literal.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CachedToolList,
  FileToolCache,
  MCPClientErrorCode,
  MCPManager,
  type ServerStatus,
  serverConfigHash,
  type ToolCacheStore,
} from "@awr/mcp-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { everythingStdioConfig } from "./fixtures/everything-server.js";
import { FakeServer } from "./fixtures/fake-server.js";
import { fixtureStdioConfig } from "./fixtures/fixture-server.js";

const fast = {
  reconnect: { initialDelayMs: 20 },
  transport: { closeGraceMs: 200 },
  requestTimeout: 15_000,
};

let dir: string;
const managers: MCPManager[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "awr-mcp-manager-"));
});
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
  await rm(dir, { recursive: true, force: true });
});

function manage(manager: MCPManager): MCPManager {
  managers.push(manager);
  return manager;
}

function readyEvent(manager: MCPManager, server: string): Promise<ServerStatus> {
  return new Promise((resolve) => {
    manager.on("state", (status) => {
      if (status.name === server && status.state === "ready") resolve(status);
    });
  });
}

describe("MCPManager startup", () => {
  it("waits for a server still starting, with no tools known, before calling one of its tools by name", async () => {
    const manager = manage(
      new MCPManager({
        ...fast,
        servers: { slow: fixtureStdioConfig({ FIXTURE_INIT_DELAY_MS: "700" }) },
      }),
    );
    const [status] = await manager.start({ gateMs: 50 });
    expect(status?.state).not.toBe("ready");
    expect(manager.listTools()).toEqual([]);
    const sum = await manager.callTool("mcp__slow__add", { a: 2, b: 3 });
    expect(sum.structuredContent).toEqual({ sum: 5 });
    // Once every server has listed its tools, an unknown name fails at once, naming no server.
    const unknown = await manager.callTool("mcp__slow__nope").catch((error: unknown) => error);
    expect(unknown).toMatchObject({
      code: MCPClientErrorCode.UnknownTool,
      message: expect.stringContaining("use a name from listTools()"),
    });
  });

  it("serves a slow server's cached tools behind the gate, then replaces them with the live list", async () => {
    const versionFile = join(dir, "version");
    const config = fixtureStdioConfig({
      FIXTURE_INIT_DELAY_MS: "700",
      FIXTURE_TOOLS_VERSION_FILE: versionFile,
    });
    const cache = new FileToolCache(join(dir, "cache"));

    await writeFile(versionFile, "1");
    const first = manage(new MCPManager({ ...fast, toolCache: cache, servers: { slow: config } }));
    await first.start({ gateMs: 15_000 });
    expect(first.listTools().map((t) => t.name)).toContain("mcp__slow__version_1");
    await first.close();

    await writeFile(versionFile, "2");
    const second = manage(new MCPManager({ ...fast, toolCache: cache, servers: { slow: config } }));
    const ready = readyEvent(second, "slow");
    const [status] = await second.start({ gateMs: 50 });
    expect(status?.state).toBe("deferred");
    expect(status?.toolsFromCache).toBe(true);
    const deferred = second.listTools();
    expect(deferred.map((t) => t.name)).toContain("mcp__slow__version_1");
    expect(deferred.every((t) => t.deferred)).toBe(true);

    // A call to a deferred tool waits for the server instead of failing.
    const sum = await second.callTool("mcp__slow__add", { a: 1, b: 1 });
    expect(sum.structuredContent).toEqual({ sum: 2 });
    await ready;
    const live = second.listTools();
    expect(live.map((t) => t.name)).toContain("mcp__slow__version_2");
    expect(live.map((t) => t.name)).not.toContain("mcp__slow__version_1");
    expect(live.some((t) => t.deferred)).toBe(false);
    // The cache is written in the background once the live list arrives.
    await expect
      .poll(async () => (await cache.get(serverConfigHash(config)))?.tools.map((t) => t.name))
      .toContain("version_2");
  });

  it("reads the cached tools before the gate answers, even when the read outlasts the gate", async () => {
    const config = fixtureStdioConfig({ FIXTURE_INIT_DELAY_MS: "700" });
    const entries = new FileToolCache(join(dir, "cache"));
    const primer = manage(
      new MCPManager({ ...fast, toolCache: entries, servers: { slow: config } }),
    );
    await primer.start({ gateMs: 15_000 });
    await primer.close();
    // A disk that answers after the gate closed (a busy machine): 200 ms per read, 20 ms gate.
    const slowDisk: ToolCacheStore = {
      get: async (key) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return entries.get(key);
      },
      set: (key, entry: CachedToolList) => entries.set(key, entry),
      delete: (key) => entries.delete(key),
    };
    const manager = manage(
      new MCPManager({ ...fast, toolCache: slowDisk, servers: { slow: config } }),
    );
    const [status] = await manager.start({ gateMs: 20 });
    expect(status?.state).toBe("deferred");
    expect(status?.toolsFromCache).toBe(true);
    expect(manager.listTools().length).toBeGreaterThan(0);
  });

  it("starts servers in parallel and returns at the gate while a slow one is still connecting", async () => {
    const manager = manage(
      new MCPManager({
        ...fast,
        toolCache: false,
        servers: {
          quick: everythingStdioConfig(),
          slow: fixtureStdioConfig({ FIXTURE_INIT_DELAY_MS: "30000" }),
        },
      }),
    );
    const statuses = await manager.start({ gateMs: 2_500 });
    const byName = Object.fromEntries(statuses.map((s) => [s.name, s.state]));
    expect(byName).toEqual({ quick: "ready", slow: "connecting" });
    expect(manager.listTools().every((t) => t.server === "quick")).toBe(true);
  });

  it("applies tool filters, per-server enable/disable, and exposes reversible names", async () => {
    const fake = new FakeServer({
      "tools/list": () => ({
        tools: ["keep", "drop", "other.tool"].map((name) => ({
          name,
          inputSchema: { type: "object" },
        })),
      }),
      "tools/call": (params) => ({
        content: [{ type: "text", text: `called ${String(params["name"])}` }],
      }),
    });
    await fake.serverTransport.connect();
    const manager = manage(
      new MCPManager({
        servers: {
          fake: { command: "unused", tools: { deny: ["drop"] } },
          off: { command: "unused", enabled: false },
        },
        createTransport: (_config, server) => {
          if (server !== "fake") throw new Error("only fake starts");
          return fake.clientTransport;
        },
      }),
    );
    await manager.start({ gateMs: 5_000 });
    expect(manager.status("off")).toMatchObject({ state: "closed", enabled: false });
    const tools = manager.listTools();
    expect(tools.map((t) => t.originalName)).toEqual(["keep", "other.tool"]);
    const odd = tools.find((t) => t.originalName === "other.tool");
    expect(odd?.name).toMatch(/^mcp__fake__other_tool_[0-9a-f]{8}$/);
    expect(manager.resolveToolName(odd?.name ?? "")).toEqual({
      server: "fake",
      tool: "other.tool",
    });
    await expect(manager.callTool(odd?.name ?? "")).resolves.toMatchObject({
      content: [{ text: "called other.tool" }],
    });
    await expect(manager.callServerTool("fake", "drop")).rejects.toMatchObject({
      code: MCPClientErrorCode.UnknownTool,
    });
    // Names resolve through the map of listed tools only, never by splitting the string.
    expect(manager.resolveToolName("mcp__fake__nope")).toBeUndefined();
    await expect(manager.callTool("mcp__fake__nope")).rejects.toMatchObject({
      code: MCPClientErrorCode.UnknownTool,
      message: expect.stringContaining("no server lists it"),
    });
    // A tool the server never listed is refused before anything is sent.
    const sent = fake.requests.length;
    await expect(manager.callServerTool("fake", "nope")).rejects.toMatchObject({
      code: MCPClientErrorCode.UnknownTool,
      message: 'server "fake" does not list a tool "nope" (it lists 3: see listTools())',
    });
    expect(fake.requests.length).toBe(sent);
    await expect(manager.callServerTool("off", "x")).rejects.toMatchObject({
      code: MCPClientErrorCode.ServerDisabled,
    });
    await manager.setServerEnabled("fake", false);
    expect(manager.listTools()).toEqual([]);
    await expect(manager.callServerTool("fake", "keep")).rejects.toMatchObject({
      code: MCPClientErrorCode.ServerDisabled,
    });
  });

  it("loads servers from a .mcp.json and reports bad entries as failed with their config error", async () => {
    await writeFile(
      join(dir, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          everything: { command: "${NODE_BIN}", args: everythingStdioConfig().args },
          broken: { type: "http" },
        },
      }),
    );
    const manager = manage(
      await MCPManager.fromConfigFile(dir, {
        ...fast,
        env: { NODE_BIN: process.execPath },
        toolCache: false,
      }),
    );
    const statuses = await manager.start({ gateMs: 15_000 });
    expect(statuses.find((s) => s.name === "everything")?.state).toBe("ready");
    const broken = statuses.find((s) => s.name === "broken");
    expect(broken?.state).toBe("failed");
    expect(broken?.lastError).toMatchObject({ code: MCPClientErrorCode.InvalidConfig });
    await expect(manager.callServerTool("broken", "anything")).rejects.toMatchObject({
      code: MCPClientErrorCode.InvalidConfig,
    });
  });
});
