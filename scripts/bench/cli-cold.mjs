// Figure 3: a cold `awr --json status` (a new process each time) against `node -e 0` on the
// same machine, alternated run by run so that machine noise hits both alike; p95 of each.
import { join } from "node:path";
import { DIST, fixtureProject, fmtMs, fmtRatio, median, percentile, ROOT, run } from "./lib.mjs";

/** Modules the CLI loads at start-up, each imported alone in a fresh process (from that dir). */
const IMPORTS = [
  ["apps/cli", "@awr/awr-ledger"],
  ["apps/cli", "@awr/awr-server"],
  ["apps/cli", "@awr/mcp-client"],
  ["apps/cli", "commander"],
  ["packages/awr-ledger", "gpt-tokenizer/encoding/o200k_base"],
  ["packages/awr-ledger", "kysely"],
  ["packages/awr-ledger", "yaml"],
  ["packages/awr-ledger", "markdown-it"],
  ["packages/awr-ledger", "better-sqlite3"],
  ["packages/awr-server", "@modelcontextprotocol/sdk/server/mcp.js"],
  ["packages/awr-server", "zod"],
];

/** Median milliseconds to import `spec` alone in a fresh node (3 runs). */
async function importCost(dir, spec) {
  const times = [];
  for (let i = 0; i < 3; i++) {
    const code = `const t = performance.now(); await import(${JSON.stringify(spec)}); console.log(performance.now() - t);`;
    const result = await run(process.execPath, ["--input-type=module", "-e", code], {
      cwd: join(ROOT, dir),
    });
    if (result.code !== 0) return Number.NaN;
    times.push(Number(result.stdout.trim()));
  }
  return median(times);
}

export const title = "CLI cold start";

async function timeOnce(args, cwd) {
  const started = performance.now();
  const result = await run(process.execPath, args, { cwd });
  const ms = performance.now() - started;
  if (result.code !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr.slice(-400)}`);
  return ms;
}

export async function run_({ quick }) {
  const rounds = quick ? 6 : 30;
  const fixture = await fixtureProject(150);
  const cliArgs = [DIST.cli, "--project", fixture.root, "--json", "status"];
  await timeOnce(cliArgs, fixture.root); // first run: page cache, first stat of the sources
  const cli = [];
  const node = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      cli.push(await timeOnce(cliArgs, fixture.root));
      node.push(await timeOnce(["-e", "0"], fixture.root));
    } else {
      node.push(await timeOnce(["-e", "0"], fixture.root));
      cli.push(await timeOnce(cliArgs, fixture.root));
    }
  }
  const cliP95 = percentile(cli, 95);
  const nodeP95 = percentile(node, 95);
  const ratio = cliP95 / nodeP95;
  const met = ratio <= 3;
  const whereTimeGoes = [];
  if (!met) {
    whereTimeGoes.push(
      "Where the time goes: start-up is dominated by loading modules. Import time of each module the CLI loads, alone in a fresh process (median of 3; modules share dependencies, so these overlap):",
      "",
      "| module (resolved from) | import ms |",
      "|---|---:|",
    );
    for (const [dir, spec] of IMPORTS) {
      const ms = await importCost(dir, spec);
      whereTimeGoes.push(
        `| \`${spec}\` (${dir}) | ${Number.isNaN(ms) ? "not resolvable" : ms.toFixed(0)} |`,
      );
    }
  }
  return {
    whereTimeGoes,
    rows: [
      {
        figure: "`awr --json status` cold, p50 / p95",
        value: `${fmtMs(percentile(cli, 50))} / ${fmtMs(cliP95)}`,
        baseline: `\`node -e 0\` ${fmtMs(percentile(node, 50))} / ${fmtMs(nodeP95)}`,
        ratio: fmtRatio(ratio),
        goal: "p95 ≤ 3x node -e 0",
        met,
        command: "pnpm bench --only cli",
      },
    ],
    notes: [
      `${rounds} runs of each, alternated; the CLI reads its project (150-item fixture, sources unchanged) and prints JSON.`,
    ],
    profiles: met
      ? []
      : [{ title: "`awr --json status` cold start", args: cliArgs, cwd: fixture.root }],
  };
}
export { run_ as run };
