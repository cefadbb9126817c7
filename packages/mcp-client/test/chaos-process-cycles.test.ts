// Chaos: 100 connect/close cycles (a quarter of them behind a wrapper shell, so close() must
// reach the whole process group) and managers closed mid-start leave no server process behind.
// Liveness comes from /proc: a zombie counts as dead, since PID 1 here never reaps orphans.
// AWR_CHAOS_FULL=1 runs 500 cycles.
import { createTransport, MCPClient, MCPManager } from "@awr/mcp-client";
import type { StdioTransport } from "@awr/transport-stdio";
import { describe, expect, it } from "vitest";
import { CHAOS_FULL, CHAOS_SERVER, FAST, isRunning, textOf } from "./fixtures/chaos-support.js";

const CYCLES = CHAOS_FULL ? 500 : 100;

describe("connect/close cycles", () => {
  it(`leaves no server process behind after ${CYCLES} cycles, with or without a wrapper shell`, async () => {
    const seen: number[] = [];
    let next = 0;
    const cycle = async (i: number) => {
      // Every fourth server runs under `sh -c`, so close() must reach the whole process group.
      const config =
        i % 4 === 0
          ? {
              command: "/bin/sh",
              args: ["-c", `exec_node() { "${process.execPath}" "${CHAOS_SERVER}"; }; exec_node`],
            }
          : { command: process.execPath, args: [CHAOS_SERVER] };
      const client = new MCPClient(createTransport(config, { closeGraceMs: 200 }), {
        name: "chaos",
        version: "1.0.0",
      });
      await client.connect();
      const wrapper = (client.transport as StdioTransport).pid;
      if (typeof wrapper === "number") seen.push(wrapper);
      seen.push(Number(textOf(await client.callTool("pid", {}))));
      await client.close();
    };
    // Four at a time: the count matters here, not the pace.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < CYCLES) await cycle(next++);
      }),
    );
    expect(new Set(seen).size).toBeGreaterThanOrEqual(CYCLES);
    const alive = seen.filter(isRunning);
    expect(alive).toEqual([]);
  }, 180_000);

  it("closes managers that never finished starting without orphaning their servers", async () => {
    const pids: number[] = [];
    for (let i = 0; i < (CHAOS_FULL ? 50 : 10); i++) {
      const m = new MCPManager({
        ...FAST,
        servers: { chaos: { command: process.execPath, args: [CHAOS_SERVER] } },
      });
      const started = m.start({ gateMs: 20_000 });
      if (i % 2 === 0) await started;
      const pid = (m.getClient("chaos")?.transport as StdioTransport | undefined)?.pid;
      if (typeof pid === "number") pids.push(pid);
      await m.close();
      await started.catch(() => undefined);
    }
    expect(pids.length).toBeGreaterThan(0);
    expect(pids.filter(isRunning)).toEqual([]);
  }, 120_000);
});
