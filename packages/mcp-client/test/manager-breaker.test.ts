// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` here is .mcp.json syntax under test, not a template literal.
// The circuit breaker and configuration errors against real server processes: a restart that
// recovers within the backoff window never opens the breaker, a crash loop meets a growing
// cool-down, a stable session clears the failures, and configuration errors (ENOENT, an unset
// variable) end in `failed` with their error after one attempt.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ManagedServerConfig,
  MCPClientErrorCode,
  MCPManager,
  type MCPManagerOptions,
  parseMcpConfig,
  type ServerState,
  type ServerStatus,
} from "@awr/mcp-client";
import type { StdioTransport } from "@awr/transport-stdio";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fixtureStdioConfig } from "./fixtures/fixture-server.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Run {
  manager: MCPManager;
  /** Every state event of the server, in order. */
  events: ServerStatus[];
  /** Resolves once `test` holds (checked now and after every state event). */
  until(test: () => boolean): Promise<void>;
}

function run(name: string, config: ManagedServerConfig, options: MCPManagerOptions = {}): Run {
  const manager = new MCPManager({
    transport: { closeGraceMs: 200 },
    toolCache: false,
    ...options,
    servers: { [name]: config },
  });
  cleanups.push(() => manager.close());
  const events: ServerStatus[] = [];
  const waiters: Array<() => void> = [];
  manager.on("state", (status) => {
    events.push(status);
    for (const waiter of waiters.splice(0)) waiter();
  });
  const until = (test: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = () => {
        if (test()) resolve();
        else waiters.push(check);
      };
      check();
    });
  return { manager, events, until };
}

const states = (events: ServerStatus[]): ServerState[] => events.map((status) => status.state);

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "awr-breaker-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function serverPid(manager: MCPManager, name: string): number {
  const pid = (manager.getClient(name)?.transport as StdioTransport | undefined)?.pid;
  if (pid === undefined) throw new Error(`server "${name}" has no process`);
  return pid;
}

describe("MCPManager circuit breaker against real servers", () => {
  it("does not open for a restart that recovers within its backoff window, and a waiting call succeeds", async () => {
    const down = join(await tempDir(), "down");
    const { manager, events } = run("svc", fixtureStdioConfig({ FIXTURE_DOWN_FILE: down }), {
      reconnect: { initialDelayMs: 10, maxDelayMs: 40 },
      circuitBreaker: { failureThreshold: 5, openAfterMs: 10_000, cooldownMs: 30_000 },
    });
    await manager.start({ gateMs: 15_000 });
    expect(manager.status("svc")?.state).toBe("ready");
    // The server goes down: every restart attempt fails at once while the file exists.
    await writeFile(down, "");
    process.kill(serverPid(manager, "svc"), "SIGKILL");
    const call = manager.callServerTool("svc", "add", { a: 2, b: 3 }, { timeout: 15_000 });
    // More fast failures than the threshold, all within openAfterMs: the old breaker opened here.
    await vi.waitFor(() => expect(manager.status("svc")?.attempts).toBeGreaterThanOrEqual(6), {
      timeout: 10_000,
      interval: 20,
    });
    await rm(down);
    await expect(call).resolves.toMatchObject({ structuredContent: { sum: 5 } });
    expect(events.map((status) => status.circuit)).not.toContain("open");
    expect(states(events)).not.toContain("failed");
    expect(manager.status("svc")?.state).toBe("ready");
  });

  it("meets a crash loop with a growing, capped cool-down", async () => {
    const { manager, events, until } = run(
      "loop",
      fixtureStdioConfig({ FIXTURE_CRASH_AFTER_MS: "150" }),
      {
        reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
        stableAfterMs: 60_000,
        circuitBreaker: {
          failureThreshold: 2,
          openAfterMs: 0,
          cooldownMs: 200,
          cooldownFactor: 2,
          maxCooldownMs: 800,
        },
      },
    );
    await manager.start({ gateMs: 15_000 });
    // Every session crashes before it is stable; every probe that crashes again opens the
    // circuit for twice as long, up to the cap.
    await until(() => events.filter((status) => status.state === "failed").length >= 4);
    const opened = events.filter((status) => status.state === "failed");
    expect(opened.slice(0, 4).map((status) => status.cooldownMs)).toEqual([200, 400, 800, 800]);
    expect(opened.every((status) => status.circuit === "open")).toBe(true);
    expect(opened[3]?.stderrTail).toContain("fixture: crashing");
  });

  it("clears the failures once a session lasted stableAfterMs", async () => {
    const { manager, events, until } = run("svc", fixtureStdioConfig(), {
      reconnect: { initialDelayMs: 10, maxDelayMs: 40 },
      stableAfterMs: 200,
      circuitBreaker: { failureThreshold: 2, openAfterMs: 0, cooldownMs: 60_000 },
    });
    await manager.start({ gateMs: 15_000 });
    for (let crash = 1; crash <= 3; crash++) {
      process.kill(serverPid(manager, "svc"), "SIGKILL");
      // The loss is one failure; the reconnect succeeds; the session then stays up.
      await until(
        () =>
          events.filter((event) => event.state === "reconnecting").length === crash &&
          events.at(-1)?.state === "ready",
      );
      await vi.waitFor(() => expect(manager.status("svc")?.attempts).toBe(0), {
        timeout: 5_000,
        interval: 20,
      });
    }
    // Two failures in a row would open the circuit; three losses separated by stable sessions do not.
    expect(events.map((status) => status.circuit)).not.toContain("open");
    await expect(manager.callServerTool("svc", "add", { a: 1, b: 1 })).resolves.toMatchObject({
      structuredContent: { sum: 2 },
    });
  });
});

describe("MCPManager configuration errors", () => {
  it("ENOENT: one attempt, then failed with the spawn error and no retry loop", async () => {
    const { manager, events } = run(
      "missing",
      { command: join(await tempDir(), "no-such-server") },
      { reconnect: { initialDelayMs: 5, maxDelayMs: 5 } },
    );
    const [status] = await manager.start({ gateMs: 10_000 });
    expect(status?.state).toBe("failed");
    expect(status?.lastError).toMatchObject({
      code: "SPAWN_FAILED",
      details: expect.objectContaining({ errno: "ENOENT" }),
    });
    await expect(
      manager.callServerTool("missing", "anything", {}, { timeout: 5_000 }),
    ).rejects.toMatchObject({
      code: "SPAWN_FAILED",
    });
    // One transition each: no reconnecting->reconnecting, no second attempt.
    expect(states(events)).toEqual(["connecting", "failed"]);
    expect(status?.attempts).toBe(0);
  });

  it("an unset variable: failed with the config error naming it, not SERVER_DISABLED", async () => {
    const entry = { mcpServers: { web: { type: "http", url: "${WEB_URL}/mcp" } } };
    const config = parseMcpConfig(entry, { env: {} });
    const manager = await MCPManager.fromConfigFile(await writeConfig(entry), {
      env: {},
      toolCache: false,
    });
    cleanups.push(() => manager.close());
    expect(config.problems[0]?.error.message).toContain("WEB_URL");
    const [status] = await manager.start({ gateMs: 5_000 });
    expect(status).toMatchObject({ name: "web", state: "failed", enabled: true });
    const rejection = manager.callServerTool("web", "anything", {}, { timeout: 5_000 });
    await expect(rejection).rejects.toMatchObject({ code: MCPClientErrorCode.InvalidConfig });
    await expect(rejection).rejects.toThrow(/WEB_URL/);
  });
});

async function writeConfig(value: unknown): Promise<string> {
  const path = join(await tempDir(), ".mcp.json");
  await writeFile(path, JSON.stringify(value));
  return path;
}
