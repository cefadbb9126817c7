// Figure 1: our MCPClient against the official SDK Client on the same server (server-everything's
// echo), stdio and Streamable HTTP, sequential and 32 in flight: the client's own CPU per call
// (process.cpuUsage() of a process that holds only that client; the server is another process)
// and calls/s. It runs scripts/bench-client.mjs (owned by the mcp-client package) and folds in
// the JSON line it prints per configuration.
import { join } from "node:path";
import { fmtInt, ROOT, run } from "./lib.mjs";

export const title = "MCP client: CPU per call and calls/s (ours vs the official SDK Client)";

const CPU_GOAL = 0.6;
const RATE_GOAL = 1;

/**
 * @param {import("./lib.mjs").BenchOptions} options
 * @returns {Promise<import("./lib.mjs").BenchResult>}
 */
export async function run_({ quick }) {
  const args = quick
    ? ["--calls", "1000", "--http-calls", "300", "--rounds", "1", "--warmup", "500"]
    : [];
  const script = join(ROOT, "scripts/bench-client.mjs");
  const result = await run(process.execPath, [script, ...args], { cwd: ROOT });
  if (result.code !== 0)
    throw new Error(`bench-client.mjs failed (${result.code}): ${result.stderr.slice(-600)}`);
  const measured = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes('"transport"'))
    .map((line) => JSON.parse(line));
  if (measured.length === 0)
    throw new Error(`bench-client.mjs printed no results:\n${result.stdout.slice(-600)}`);
  const command = `node scripts/bench-client.mjs${args.length ? ` ${args.join(" ")}` : ""}`;
  const rows = measured.flatMap((row) => [
    ...(row["floor cpu µs/call"] === undefined
      ? []
      : [
          {
            figure: `client CPU per call, ${row.transport}, ${row.mode}: the floor (a minimal raw client)`,
            value: `${row["floor cpu µs/call"].toFixed(1)} µs`,
            baseline: `SDK Client ${row["sdk cpu µs/call"].toFixed(1)} µs`,
            ratio: `${Number(row["floor cpu ratio"]).toFixed(2)}x`,
            goal: "— (reported: no client can go below it)",
            met: undefined,
            command,
          },
        ]),
    {
      figure: `client CPU per call, ${row.transport}, ${row.mode}`,
      value: `${row["ours cpu µs/call"].toFixed(1)} µs`,
      baseline: `SDK Client ${row["sdk cpu µs/call"].toFixed(1)} µs`,
      ratio: `${Number(row["cpu ratio"]).toFixed(2)}x`,
      goal: `≤ ${CPU_GOAL}x`,
      met: Number(row["cpu ratio"]) <= CPU_GOAL,
      command,
    },
    ...(row["same-session cpu µs/call"] === undefined
      ? []
      : [
          {
            figure: `client CPU per call and calls/s, ${row.transport}, ${row.mode}, processGroup: false (server in the host's session)`,
            value: `${row["same-session cpu µs/call"].toFixed(1)} µs, ${fmtInt(row["same-session calls/s"])}/s`,
            baseline: `SDK Client ${row["sdk cpu µs/call"].toFixed(1)} µs, ${fmtInt(row["sdk calls/s"])}/s`,
            ratio: `${Number(row["same-session cpu ratio"]).toFixed(2)}x`,
            goal: "— (reported: the default's own process group costs scheduling, not client code)",
            met: undefined,
            command,
          },
        ]),
    {
      figure: `calls/s, ${row.transport}, ${row.mode}`,
      value: `${fmtInt(row["ours calls/s"])}/s`,
      baseline: `SDK Client ${fmtInt(row["sdk calls/s"])}/s`,
      ratio: `${Number(row.ratio).toFixed(2)}x`,
      goal: `≥ ${RATE_GOAL}x`,
      met: Number(row.ratio) >= RATE_GOAL,
      command,
    },
  ]);
  // A missed goal gets a profile of our client alone in that mode (the worker process only).
  const missed = measured.filter(
    (row) => Number(row["cpu ratio"]) > CPU_GOAL || Number(row.ratio) < RATE_GOAL,
  );
  return {
    rows,
    notes: [
      "scripts/bench-client.mjs (from the mcp-client package) runs every measurement in a fresh node process " +
        "that holds one client only, so `process.cpuUsage()` there is that client's own CPU (user + system; the " +
        "server is another process), alternating ours and the SDK's, and reports medians. Our client runs from " +
        "its built dist/. Over stdio the floor is a minimal raw client in the same harness (stringify, write, split " +
        "lines, parse, match the id; no validation, timeouts or cancellation): the CPU a call costs in pipe I/O and the " +
        "event loop whatever the client. The processGroup: false row is our client with its server in the host's " +
        "session: by default the server leads its own process group, which Node creates with setsid(), and on Linux " +
        "with autogroup scheduling that puts it in a scheduling group of its own, whose wake-ups a busy machine " +
        `delays (the SDK's server and the floor's stay in the host's session). ${quick ? "Quick mode: 1000 stdio / 300 HTTP calls, 1 round." : "Defaults: stdio 10000 calls after 10000 warm-up calls (with 2000, JIT tier-up still happened inside the timed window), HTTP 1500 after 500, 5 rounds."}`,
    ],
    profiles: missed.map((row) => ({
      title: `our client alone, ${row.transport}, ${row.mode}`,
      args: [
        script,
        "--worker",
        "ours",
        row.transport,
        "auto",
        row.mode === "sequential" ? "1" : row.mode.split(" ")[0],
        row.transport === "http" ? "1500" : "20000",
        "2000",
      ],
    })),
  };
}
export { run_ as run };
