import { MCPManager, MemoryToolCache, serverConfigHash, type Tool } from "@awr/mcp-client";
import { afterEach, describe, expect, it } from "vitest";
import { FakeServer } from "./fixtures/fake-server.js";

const config = { command: "fake-server" };
const managers: MCPManager[] = [];
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.close();
});

function tools(...names: string[]): Tool[] {
  return names.map((name) => ({ name, inputSchema: { type: "object" } }));
}

async function managerFor(
  server: FakeServer,
  cache: MemoryToolCache,
  ttlMs = 60_000,
): Promise<MCPManager> {
  await server.serverTransport.connect();
  const manager = new MCPManager({
    servers: { fake: config },
    toolCache: cache,
    toolCacheTtlMs: ttlMs,
    client: { listChangedDebounceMs: 5 },
    createTransport: () => server.clientTransport,
  });
  managers.push(manager);
  return manager;
}

describe("MCPManager tool cache", () => {
  it("ignores a cached list older than the TTL", async () => {
    const cache = new MemoryToolCache();
    await cache.set(serverConfigHash(config), {
      tools: tools("stale"),
      savedAt: Date.now() - 120_000,
    });
    const server = new FakeServer({ initialize: () => new Promise(() => {}) });
    const manager = await managerFor(server, cache, 60_000);
    const [status] = await manager.start({ gateMs: 30 });
    expect(status?.state).toBe("connecting");
    expect(manager.listTools()).toEqual([]);
  });

  it("serves a fresh cached list as deferred tools while the server starts", async () => {
    const cache = new MemoryToolCache();
    await cache.set(serverConfigHash(config), { tools: tools("cached"), savedAt: Date.now() });
    const server = new FakeServer({ initialize: () => new Promise(() => {}) });
    const manager = await managerFor(server, cache);
    const [status] = await manager.start({ gateMs: 30 });
    expect(status?.state).toBe("deferred");
    expect(manager.listTools()).toMatchObject([
      { name: "mcp__fake__cached", deferred: true, server: "fake" },
    ]);
  });

  it("invalidates the cache on list_changed and stores the refreshed list", async () => {
    const cache = new MemoryToolCache();
    let current = tools("v1");
    const server = new FakeServer({ "tools/list": () => ({ tools: current }) });
    const manager = await managerFor(server, cache);
    await manager.start({ gateMs: 5_000 });
    expect((await cache.get(serverConfigHash(config)))?.tools.map((t) => t.name)).toEqual(["v1"]);
    const changed = new Promise<void>((resolve) => manager.on("toolsChanged", () => resolve()));
    current = tools("v2");
    await server.tell("notifications/tools/list_changed");
    await changed;
    expect(manager.listTools().map((t) => t.name)).toEqual(["mcp__fake__v2"]);
    await expect
      .poll(async () => (await cache.get(serverConfigHash(config)))?.tools.map((t) => t.name))
      .toEqual(["v2"]);
  });
});
