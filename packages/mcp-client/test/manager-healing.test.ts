import {
  type ManagedServerConfig,
  MCPClientErrorCode,
  MCPManager,
  type ServerState,
  type ServerStatus,
} from "@awr/mcp-client";
import type { StdioTransport } from "@awr/transport-stdio";
import { afterEach, describe, expect, it } from "vitest";
import { EverythingHttpServer, everythingStdioConfig } from "./fixtures/everything-server.js";
import { FixtureHttpServer } from "./fixtures/fixture-server.js";
import type { HttpServerProcess } from "./fixtures/http-server-process.js";

const fast = {
  reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
  transport: { closeGraceMs: 200 },
  requestTimeout: 15_000,
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function track(manager: MCPManager): { states: Array<[string, ServerState]> } {
  const log = { states: [] as Array<[string, ServerState]> };
  manager.on("state", (status: ServerStatus) => log.states.push([status.name, status.state]));
  cleanups.push(() => manager.close());
  return log;
}

/** A manager over `servers` with fast healing, tracked, closed after the test, and started. */
async function startManager(servers: Record<string, ManagedServerConfig>) {
  const manager = new MCPManager({ ...fast, servers });
  const log = track(manager);
  const statuses = await manager.start({ gateMs: 15_000 });
  return { manager, log, statuses };
}

/** An HTTP server process, stopped after the test. */
async function httpServer(start: () => Promise<HttpServerProcess>): Promise<HttpServerProcess> {
  const server = await start();
  cleanups.push(() => server.stop());
  return server;
}

function waitForState(
  manager: MCPManager,
  server: string,
  state: ServerState,
): Promise<ServerStatus> {
  return new Promise((resolve) => {
    const current = manager.status(server);
    if (current?.state === state) return resolve(current);
    const off = manager.on("state", (status) => {
      if (status.name === server && status.state === state) {
        off();
        resolve(status);
      }
    });
  });
}

describe("MCPManager healing", () => {
  it("heals a stdio server killed with SIGKILL mid-session: the next call succeeds on a new process", async () => {
    const {
      manager,
      log,
      statuses: [status],
    } = await startManager({ everything: everythingStdioConfig() });
    expect(status?.state).toBe("ready");
    expect(manager.listTools().map((t) => t.name)).toContain("mcp__everything__get-sum");
    const first = manager.getClient("everything")?.transport as StdioTransport;
    const pid = first.pid;
    expect(pid).toBeTypeOf("number");
    process.kill(pid as number, "SIGKILL");
    await waitForState(manager, "everything", "reconnecting");
    const result = await manager.callTool("mcp__everything__get-sum", { a: 1, b: 2 });
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("3") });
    const second = manager.getClient("everything")?.transport as StdioTransport;
    expect(second.pid).not.toBe(pid);
    expect(manager.status("everything")?.lastError?.message).toMatch(/exit|signal|SIGKILL|closed/i);
    expect(log.states).toContainEqual(["everything", "reconnecting"]);
    expect(log.states.at(-1)).toEqual(["everything", "ready"]);
  });

  it("retries an idempotent call once when its server is killed while the call runs", async () => {
    const { manager } = await startManager({ everything: everythingStdioConfig() });
    const transport = manager.getClient("everything")?.transport as StdioTransport | undefined;
    const pid = transport?.pid as number;
    let killed = false;
    const result = await manager.callTool(
      "mcp__everything__trigger-long-running-operation",
      { duration: 0.6, steps: 3 },
      {
        onprogress: () => {
          if (killed) return;
          killed = true;
          process.kill(pid, "SIGKILL");
        },
      },
    );
    expect(killed).toBe(true);
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("completed") });
    const healed = manager.getClient("everything")?.transport as StdioTransport | undefined;
    expect(healed?.pid).not.toBe(pid);
  });

  it("re-initialises after an HTTP server restart (404 session expired) and retries a read-only call once", async () => {
    const server = await httpServer(FixtureHttpServer.start);
    const { manager } = await startManager({ fixture: { type: "http", url: server.url } });
    const before = manager.getClient("fixture")?.transport.sessionId;
    expect(before).toBeTypeOf("string");
    await server.restart();
    const result = await manager.callTool("mcp__fixture__add", { a: 20, b: 22 });
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(manager.status("fixture")?.lastError).toMatchObject({ code: "SESSION_EXPIRED" });
    const after = manager.getClient("fixture")?.transport.sessionId;
    expect(after).toBeTypeOf("string");
    expect(after).not.toBe(before);
  });

  it("does not retry a tool that is neither read-only nor idempotent, but heals for the next call", async () => {
    const server = await httpServer(FixtureHttpServer.start);
    const { manager } = await startManager({ fixture: { type: "http", url: server.url } });
    await server.restart();
    await expect(manager.callTool("mcp__fixture__append", { line: "x" })).rejects.toMatchObject({
      code: "SESSION_EXPIRED",
    });
    await expect(manager.callTool("mcp__fixture__append", { line: "y" })).resolves.toMatchObject({
      content: [{ text: "appended y" }],
    });
  });

  it("heals server-everything over HTTP after a restart (it answers 400 for unknown sessions)", async () => {
    const server = await httpServer(EverythingHttpServer.start);
    const { manager } = await startManager({ everything: { type: "http", url: server.url } });
    await server.restart();
    const result = await manager.callTool("mcp__everything__get-sum", { a: 5, b: 6 });
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("11") });
  });

  it("trips the circuit breaker on repeated crashes and then fails calls fast with the stderr tail", async () => {
    const crashing = {
      command: process.execPath,
      args: ["-e", "process.stderr.write('fatal: config is broken\\n'); process.exit(3)"],
    };
    const manager = new MCPManager({
      ...fast,
      reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
      circuitBreaker: { failureThreshold: 3, openAfterMs: 0, cooldownMs: 60_000 },
      servers: { crashy: crashing },
    });
    const log = track(manager);
    await manager.start({ gateMs: 10_000 });
    const failed = await waitForState(manager, "crashy", "failed");
    expect(failed.circuit).toBe("open");
    expect(failed.stderrTail).toContain("fatal: config is broken");
    expect(failed.lastError).toBeInstanceOf(Error);
    // One event per transition: retrying while reconnecting does not repeat "reconnecting".
    expect(log.states.filter(([name]) => name === "crashy").map(([, state]) => state)).toEqual([
      "connecting",
      "reconnecting",
      "failed",
    ]);
    await expect(manager.callServerTool("crashy", "anything", {})).rejects.toMatchObject({
      code: MCPClientErrorCode.CircuitOpen,
    });
  });
});
