// Figure 7: resident memory of the shared HTTP service (awr-mcp --registry, built), idle after
// start-up and one call, then with 100 active AWR sessions whose 100 clients call it at once.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BENCH_TOKEN,
  fixtureProject,
  fmtMiB,
  httpTool,
  registryToml,
  rssBytes,
  startHttpService,
  tempDir,
} from "./lib.mjs";

export const title = "Service memory";

/**
 * The service refuses a call past its 64 concurrent ones with -32010 ("retry shortly").
 * @param {{ busy: number }} stats counts the refusals
 * @param {Parameters<typeof httpTool>} args
 */
async function callRetryingBusy(stats, ...args) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await httpTool(...args);
    } catch (error) {
      if (/** @type {{ code?: unknown } | undefined} */ (error)?.code !== -32010 || attempt >= 200)
        throw error;
      stats.busy++;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
}

/**
 * @param {import("./lib.mjs").BenchOptions} options
 * @returns {Promise<import("./lib.mjs").BenchResult>}
 */
export async function run({ quick }) {
  const stats = { busy: 0 };
  const project = { key: "mem", ...(await fixtureProject(150)) };
  const works = project.items.filter((i) => i.active).map((i) => i.work);
  const registry = join(tempDir("mem"), "service.toml");
  writeFileSync(registry, registryToml([project]));
  const service = await startHttpService(registry, { AWR_BENCH_TOKEN: BENCH_TOKEN });
  const sessions = 100;
  const callsPerClient = quick ? 5 : 30;
  let idle;
  let peak = 0;
  let after;
  try {
    await httpTool(service.url, BENCH_TOKEN, "awr_project_status", { project: "mem" });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    idle = rssBytes(service.pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssBytes(service.pid));
    }, 20);
    try {
      // 100 sessions, started one after another (each start is a journaled write).
      let revision = (
        await httpTool(service.url, BENCH_TOKEN, "awr_project_status", { project: "mem" })
      ).structuredContent.project_revision;
      for (let s = 0; s < sessions; s++) {
        const result = await httpTool(service.url, BENCH_TOKEN, "awr_session_start", {
          project: "mem",
          work: works[s % works.length],
          conversation: `bench-${s}`,
          agent: "bench",
          provider: "bench",
          model: "none",
          request_id: `mem-session-${s}`,
          expected_revision: revision,
        });
        if (result.isError)
          throw new Error(`session start failed: ${JSON.stringify(result.structuredContent)}`);
        revision = result.structuredContent.project_revision;
      }
      // Then all 100 clients at once, each compiling context for its session and reading it.
      await Promise.all(
        Array.from({ length: sessions }, async (_, s) => {
          for (let c = 0; c < callsPerClient; c++) {
            const name = c % 2 === 0 ? "awr_context_compile" : "awr_session_get";
            const args =
              c % 2 === 0
                ? { project: "mem", conversation: `bench-${s}`, budget: 5000 }
                : { project: "mem", conversation: `bench-${s}` };
            const result = await callRetryingBusy(
              stats,
              service.url,
              BENCH_TOKEN,
              name,
              args,
              c + 1,
            );
            if (result.isError)
              throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`);
          }
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssBytes(service.pid));
    after = rssBytes(service.pid);
  } finally {
    await service.stop();
  }
  return {
    rows: [
      {
        figure: "awr-mcp HTTP service RSS: idle / peak with 100 active sessions",
        value: `${fmtMiB(idle)} / ${fmtMiB(peak)}`,
        baseline: `idle ${fmtMiB(idle)}`,
        ratio: `+${fmtMiB(peak - idle)} (${fmtMiB((peak - idle) / sessions)} per session)`,
        goal: "— (reported)",
        met: null,
        command: "pnpm bench --only memory",
      },
    ],
    notes: [
      `Idle = after start-up, one call and a 1 s pause. Then 100 sessions are started (journaled writes, one after another) ` +
        `and 100 concurrent clients each make ${callsPerClient} calls (context compile for their session, session get); RSS sampled ` +
        `every 20 ms from /proc. RSS after the load: ${fmtMiB(after)}. ` +
        `100 clients exceed the service's 64 concurrent calls: ${stats.busy} calls were refused as busy (-32010) and retried, as that error asks.`,
    ],
    profiles: [],
  };
}
