// Figure 1: client calls/s, our MCPClient against the official SDK Client, same server
// (server-everything's echo), stdio and Streamable HTTP, sequential and 32 in flight. It runs
// scripts/bench-client.mjs (owned by the mcp-client package) and folds in the JSON line it
// prints per configuration.
import { join } from "node:path";
import { fmtInt, ROOT, run } from "./lib.mjs";

export const title = "Client calls/s (ours vs the official SDK Client)";

export async function run_({ quick }) {
  const args = quick ? ["--calls", "400", "--rounds", "1", "--warmup", "300"] : [];
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
  return {
    rows: measured.map((row) => ({
      figure: `calls/s, ${row.transport}, ${row.mode}`,
      value: `${fmtInt(row["ours calls/s"])}/s`,
      baseline: `SDK Client ${fmtInt(row["sdk calls/s"])}/s`,
      ratio: `${Number(row.ratio).toFixed(2)}x`,
      goal: "≥ 1.5x",
      met: Number(row.ratio) >= 1.5,
      command,
    })),
    notes: [
      "scripts/bench-client.mjs (from the mcp-client package) drives server-everything's `echo` tool with both clients, " +
        "alternating runs, and reports the median of each; it runs our client from its TypeScript sources through tsx " +
        `(its own choice; the figures are the same code as dist). ${quick ? "Quick mode: 400 calls, 1 round." : "Defaults: 2000 calls per run after 2000 warm-up calls, 3 rounds."}`,
    ],
    profiles: measured.some((row) => Number(row.ratio) < 1.5)
      ? [
          {
            title:
              "client calls/s below 1.5x the SDK Client (every node process of a small bench-client run)",
            args: [script, "--calls", "1000", "--rounds", "1", "--warmup", "300"],
            tree: true,
          },
        ]
      : [],
  };
}
export { run_ as run };
