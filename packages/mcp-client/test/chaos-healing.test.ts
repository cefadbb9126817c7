// Chaos: the manager heals, again and again. A stdio server is killed with SIGKILL while calls
// are in flight; an HTTP server is killed and restarted on the same port (every session lost)
// while calls are in flight. AWR_CHAOS_FULL=1 runs 20 rounds of each instead of 4.
import { MCPManager, type ServerStatus } from "@awr/mcp-client";
import type { StdioTransport } from "@awr/transport-stdio";
import { afterEach, describe, expect, it } from "vitest";
import { CHAOS_FULL, CHAOS_SERVER, FAST, isRunning, textOf } from "./fixtures/chaos-support.js";
import { HttpServerProcess } from "./fixtures/http-server-process.js";

const ROUNDS = CHAOS_FULL ? 20 : 4;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function manager(
  servers: NonNullable<ConstructorParameters<typeof MCPManager>[0]>["servers"],
  extra: Partial<ConstructorParameters<typeof MCPManager>[0]> = {},
): MCPManager {
  const m = new MCPManager({ ...FAST, ...extra, servers });
  cleanups.push(() => m.close());
  return m;
}

function serverPid(m: MCPManager, name: string): number {
  const pid = (m.getClient(name)?.transport as StdioTransport | undefined)?.pid;
  if (typeof pid !== "number") throw new Error("no server pid");
  return pid;
}

function waitForState(m: MCPManager, server: string, state: ServerStatus["state"]): Promise<void> {
  return new Promise((resolve) => {
    if (m.status(server)?.state === state) return resolve();
    const off = m.on("state", (status) => {
      if (status.name === server && status.state === state) {
        off();
        resolve();
      }
    });
  });
}

/** Counts the chaos server's "<tool> started" lines, so a test waits until calls are in flight. */
class StartedCalls {
  readonly #counts = new Map<string, number>();
  readonly #waiters = new Set<() => void>();
  #partial = "";

  feed(text: string): void {
    const lines = (this.#partial + text).split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) {
      const match = /^(\w+) started$/.exec(line);
      if (match?.[1]) this.#counts.set(match[1], (this.#counts.get(match[1]) ?? 0) + 1);
    }
    for (const waiter of [...this.#waiters]) waiter();
  }

  reset(): void {
    this.#counts.clear();
  }

  atLeast(tool: string, count: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if ((this.#counts.get(tool) ?? 0) < count) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
      check();
    });
  }
}

describe("MCPManager under repeated server crashes", () => {
  it("heals a stdio server killed with SIGKILL while read-only calls are in flight, round after round", async () => {
    const started = new StartedCalls();
    const m = manager(
      { chaos: { command: process.execPath, args: [CHAOS_SERVER] } },
      { transport: { ...FAST.transport, onStderr: (text) => started.feed(text) } },
    );
    await m.start({ gateMs: 20_000 });
    const pids = new Set<number>();
    for (let round = 0; round < ROUNDS; round++) {
      const pid = serverPid(m, "chaos");
      pids.add(pid);
      // Every call of the previous round has settled: count this round's only.
      started.reset();
      const inFlight = Array.from({ length: 16 }, (_, i) =>
        i % 2 === 0
          ? m.callTool("mcp__chaos__slow", { ms: 300 })
          : m.callTool("mcp__chaos__add", { a: round, b: i }),
      );
      // The write is held by the server, so the kill certainly meets it in flight.
      const writeInFlight = m.callTool("mcp__chaos__append", { line: `r${round}`, ms: 60_000 });
      writeInFlight.catch(() => {});
      await started.atLeast("slow", 8);
      await started.atLeast("append", 1);
      process.kill(pid, "SIGKILL");
      const results = await Promise.all(inFlight);
      results.forEach((result, i) => {
        if (i % 2 === 1) expect(result.structuredContent).toEqual({ sum: round + i });
      });
      // The killed process is gone; read-only calls that hit it ran again on its successor.
      expect(isRunning(pid)).toBe(false);
      const slowPids = results.filter((_, i) => i % 2 === 0).map((r) => Number(textOf(r)));
      expect(slowPids.every((p) => p !== pid)).toBe(true);
      // A call that is not read-only and met the crash fails with it: never retried.
      await expect(writeInFlight).rejects.toMatchObject({ code: "PROCESS_EXITED" });
      expect(serverPid(m, "chaos")).not.toBe(pid);
    }
    expect(pids.size).toBe(ROUNDS);
    expect(m.status("chaos")?.state).toBe("ready");
  }, 120_000);

  it("re-initialises after HTTP restarts on the same port, also with calls made while the server is down", async () => {
    const server = await HttpServerProcess.start({
      label: "chaos server",
      args: [CHAOS_SERVER],
      env: (port) => ({ CHAOS_TRANSPORT: "http", CHAOS_PORT: String(port) }),
      readyText: "listening",
    });
    cleanups.push(() => server.stop());
    // Restarts back to back, with sessions shorter than stableAfterMs in between, are what a
    // crash loop looks like to the breaker; this test is about healing, so it gets headroom.
    const m = manager(
      { chaos: { type: "http", url: server.url } },
      {
        reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 },
        circuitBreaker: { failureThreshold: 100 },
      },
    );
    await m.start({ gateMs: 20_000 });
    const sessions = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const before = m.getClient("chaos")?.transport.sessionId;
      if (before) sessions.add(before);
      await server.stop();
      // Calls made during the outage wait for the heal (within their timeout), then succeed.
      const duringOutage = Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => m.callTool("mcp__chaos__add", { a: round, b: i })),
      );
      // The outage has been seen (a call failed and the manager began healing): bring it back.
      await waitForState(m, "chaos", "reconnecting");
      await server.relaunch();
      const results = await duringOutage;
      expect(
        results.map((r) => (r.status === "fulfilled" ? r.value.structuredContent : r.reason)),
      ).toEqual(Array.from({ length: 8 }, (_, i) => ({ sum: round + i })));
      await waitForState(m, "chaos", "ready");
      const after = m.getClient("chaos")?.transport.sessionId;
      expect(after).toBeTypeOf("string");
      expect(after).not.toBe(before);
    }
    expect(sessions.size).toBe(ROUNDS);
  }, 120_000);
});
