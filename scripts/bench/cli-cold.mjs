// Figure 3: cold CLI reads (a new process each time) against `node -e 0` on the same machine,
// alternated run by run so that machine noise hits all alike; p95 of each. `status` and
// `work show` on the 150-item fixture, `context compile` on the original's public benchmark
// corpus (skipped with a note when it is absent). Each read is run once untimed first (page
// cache, the first stat of the sources, the persisted token counts of its texts).
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import {
  DIST,
  fixtureProject,
  fmtMs,
  fmtRatio,
  load,
  median,
  percentile,
  ROOT,
  run,
  tempDir,
} from "./lib.mjs";
import { PUBLIC_CORPUS } from "./public-benchmark.mjs";

/**
 * Modules the CLI loads at start-up, each imported alone in a fresh process (from that dir).
 * @type {[dir: string, spec: string][]}
 */
const IMPORTS = [
  ["apps/cli", "@awr/awr-ledger/open"],
  ["apps/cli", "@awr/awr-server"],
  ["apps/cli", "@awr/mcp-client"],
  ["apps/cli", "commander"],
  ["packages/awr-ledger", "gpt-tokenizer/encoding/o200k_base"],
  ["packages/awr-ledger", "./dist/internal/kysely.cjs"],
  ["packages/awr-ledger", "yaml"],
  ["packages/awr-ledger", "markdown-it"],
  ["packages/awr-ledger", "better-sqlite3"],
  ["packages/awr-server", "@modelcontextprotocol/sdk/server/mcp.js"],
  ["packages/awr-server", "zod"],
];

/**
 * Median milliseconds to import `spec` alone in a fresh node (3 runs).
 * @param {string} dir the workspace package to import it from
 * @param {string} spec
 */
async function importCost(dir, spec) {
  /** @type {number[]} */
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

const GOAL = 2.5;

/**
 * Milliseconds one run of node with `args` takes in `cwd`.
 * @param {string[]} args
 * @param {string} cwd
 */
async function timeOnce(args, cwd) {
  const started = performance.now();
  const result = await run(process.execPath, args, { cwd });
  const ms = performance.now() - started;
  if (result.code !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr.slice(-400)}`);
  return ms;
}

/** The reads timed: [label, args, cwd]; context compile only when the corpus is present. */
async function reads() {
  const fixture = await fixtureProject(150);
  /** @type {[string, string[], string][]} */
  const list = [
    ["`awr --json status`", ["status"], fixture.root],
    ["`awr --json work show W-0001`", ["work", "show", "W-0001"], fixture.root],
  ];
  if (existsSync(join(PUBLIC_CORPUS, "work-ledger.yaml"))) {
    const root = join(tempDir("cli-public"), "project");
    cpSync(PUBLIC_CORPUS, root, { recursive: true });
    const { initProject } = await load(DIST.ledger);
    await initProject({ root, manifest: join(root, "project.toml"), accept: true });
    list.push([
      "`awr --json context compile --work TASK-002` (public corpus)",
      ["context", "compile", "--work", "TASK-002"],
      root,
    ]);
  }
  return list.map(([label, words, cwd]) => ({
    label,
    cwd,
    args: [DIST.cli, "--project", cwd, "--json", ...words],
  }));
}

/**
 * @param {import("./lib.mjs").BenchOptions} options
 * @returns {Promise<import("./lib.mjs").BenchResult>}
 */
export async function run_({ quick }) {
  const rounds = quick ? 6 : 30;
  const timed = await reads();
  for (const read of timed) await timeOnce(read.args, read.cwd);
  const samples = timed.map(() => /** @type {number[]} */ ([]));
  const node = [];
  for (let i = 0; i < rounds; i++) {
    // Rotate the order so no command always runs right after another.
    const order = [-1, ...timed.keys()];
    for (let k = 0; k < i % order.length; k++) order.push(/** @type {number} */ (order.shift()));
    for (const j of order) {
      const read = timed[j];
      if (j < 0 || read === undefined) node.push(await timeOnce(["-e", "0"], ROOT));
      else samples[j]?.push(await timeOnce(read.args, read.cwd));
    }
  }
  const nodeP95 = percentile(node, 95);
  const baseline = `\`node -e 0\` ${fmtMs(percentile(node, 50))} / ${fmtMs(nodeP95)}`;
  const rows = timed.map((read, j) => {
    const times = samples[j] ?? [];
    const ratio = percentile(times, 95) / nodeP95;
    return {
      figure: `${read.label} cold, p50 / p95`,
      value: `${fmtMs(percentile(times, 50))} / ${fmtMs(percentile(times, 95))}`,
      baseline,
      ratio: fmtRatio(ratio),
      goal: `p95 ≤ ${GOAL}x node -e 0`,
      met: ratio <= GOAL,
      command: "pnpm bench --only cli",
    };
  });
  const missed = timed.filter((_, j) => !rows[j]?.met);
  const whereTimeGoes = [];
  if (missed.length > 0) {
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
  if (timed.length < 3) {
    whereTimeGoes.push(
      "",
      `The context compile row needs the original's public benchmark corpus at ${PUBLIC_CORPUS} (set AWR_PUBLIC_BENCHMARK).`,
    );
  }
  return {
    whereTimeGoes,
    rows,
    notes: [
      `${rounds} runs of each, alternated with \`node -e 0\`; each CLI read prints JSON from an up-to-date project (sources unchanged).`,
    ],
    profiles: missed.map((read) => ({
      title: `${read.label} cold start`,
      args: read.args,
      cwd: read.cwd,
    })),
  };
}
export { run_ as run };
