// CPU profiles for missed goals: runs a node command under --cpu-prof and summarises where the
// time went (self time by function and by package), for BENCHMARKS.md.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, run, tempDir } from "./lib.mjs";

/**
 * A time ranking entry: a function or a package, its self time and its share of the total.
 * @typedef {{ name: string; ms: number; share: number }} Ranked
 */

/**
 * Where one process's samples went.
 * @typedef {object} ProfileSummary
 * @property {number} totalMs
 * @property {Ranked[]} topFunctions
 * @property {Ranked[]} topPackages
 * @property {string[]} ours the workspace packages that ran in it
 */

/**
 * What profileNode resolves with: the busiest process's summary and the others'.
 * @typedef {ProfileSummary & { others: ProfileSummary[] }} NodeProfile
 */

/**
 * The part of a V8 .cpuprofile file the summary reads.
 * @typedef {object} CpuProfile
 * @property {{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]} nodes
 * @property {number[]} samples
 * @property {number[]} timeDeltas
 */

/**
 * `node --cpu-prof <args>`; resolves with { topFunctions, topPackages, totalMs }.
 * @param {string[]} args
 * @param {{ cwd?: string | undefined; env?: NodeJS.ProcessEnv; top?: number; tree?: boolean | undefined }} [options]
 * @returns {Promise<NodeProfile>}
 */
export async function profileNode(args, { cwd = ROOT, env = {}, top = 8, tree = false } = {}) {
  const dir = tempDir("prof");
  // tree: every node process of the command tree is profiled (NODE_OPTIONS is inherited; it
  // refuses --cpu-prof, so a preloaded module runs the inspector's profiler instead).
  const nodeArgs = tree ? args : ["--cpu-prof", "--cpu-prof-dir", dir, ...args];
  const preload = pathToFileURL(join(ROOT, "scripts/bench/cpu-profile-preload.mjs")).href;
  const nodeOptions = tree ? { NODE_OPTIONS: `--import=${preload}`, AWR_BENCH_PROF_DIR: dir } : {};
  const result = await run(process.execPath, nodeArgs, {
    cwd,
    env: { ...process.env, ...env, ...nodeOptions },
  });
  if (result.code !== 0)
    throw new Error(`profiled command failed (${result.code}): ${result.stderr.slice(-500)}`);
  const files = readdirSync(dir).filter((name) => name.endsWith(".cpuprofile"));
  if (files.length === 0) throw new Error("no .cpuprofile written");
  const summaries = files.map((file) =>
    summarise(JSON.parse(readFileSync(join(dir, file), "utf8")), top),
  );
  summaries.sort((a, b) => b.totalMs - a.totalMs);
  const [main, ...others] = summaries;
  // At least one file, so `main` is there.
  return { .../** @type {ProfileSummary} */ (main), others };
}

/**
 * The package (or workspace folder) a script URL belongs to.
 * @param {string | undefined} url
 */
function packageOf(url) {
  if (!url) return "(native / runtime)";
  if (url.startsWith("node:")) return "node (built-in modules)";
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = path.slice(nm + "/node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? path);
  }
  const ws = /\/(packages|apps)\/([^/]+)\//.exec(path);
  if (ws) return ws[1] === "apps" ? `apps/${ws[2]}` : `@awr/${ws[2]}`;
  return path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path;
}

/**
 * @param {CpuProfile} profile
 * @param {number} top how many functions and packages to rank
 * @returns {ProfileSummary}
 */
function summarise(profile, top) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  /** @type {Map<number | undefined, number>} */
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    self.set(
      profile.samples[i],
      (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0),
    );
  }
  /** @type {Map<string, number>} */
  const fns = new Map();
  /** @type {Map<string, number>} */
  const pkgs = new Map();
  let total = 0;
  for (const [id, micros] of self) {
    /** @type {Partial<CpuProfile["nodes"][number]["callFrame"]>} */
    const frame = byId.get(/** @type {number} */ (id))?.callFrame ?? {};
    const name = frame.functionName || "(anonymous)";
    if (name === "(idle)") continue;
    total += micros;
    const where = frame.url
      ? `${packageOf(frame.url)} ${frame.url.split("/").pop()}:${/** @type {number} */ (frame.lineNumber) + 1}`
      : "";
    const key = `${name} ${where}`.trim();
    fns.set(key, (fns.get(key) ?? 0) + micros);
    const pkg = name.startsWith("(") ? name : packageOf(frame.url);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + micros);
  }
  /** @param {Map<string, number>} map */
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: total ? micros / total : 0 }));
  // Which of our packages ran in this process: tells the processes of a tree apart.
  const ours = [...pkgs.entries()]
    .filter(([name]) => name.startsWith("@awr/") || name.startsWith("apps/"))
    .sort((a, b) => b[1] - a[1])
    .map(([name]) => name);
  return { totalMs: total / 1000, topFunctions: rank(fns), topPackages: rank(pkgs), ours };
}

/**
 * Markdown lines for one profile.
 * @param {string} title
 * @param {string} command how to rerun what was profiled
 * @param {NodeProfile} summary
 */
export function profileMarkdown(title, command, summary) {
  const lines = [
    `#### ${title}`,
    "",
    `Profiled: \`${command}\` (${summary.totalMs.toFixed(0)} ms of samples, idle excluded${summary.others?.length ? `; the busiest process, running ${summary.ours.join(", ") || "no workspace code"}` : ""}).`,
    "",
  ];
  lines.push("Self time by package:", "", "| package | self ms | share |", "|---|---:|---:|");
  for (const p of summary.topPackages)
    lines.push(`| ${p.name} | ${p.ms.toFixed(1)} | ${(p.share * 100).toFixed(1)}% |`);
  lines.push(
    "",
    "Top functions by self time:",
    "",
    "| function | self ms | share |",
    "|---|---:|---:|",
  );
  for (const f of summary.topFunctions)
    lines.push(
      `| \`${f.name.replaceAll("|", "\\|")}\` | ${f.ms.toFixed(1)} | ${(f.share * 100).toFixed(1)}% |`,
    );
  lines.push("");
  if (summary.others?.length) {
    lines.push("Other processes of the same run (CPU ms, top packages by self time):", "");
    for (const other of summary.others.slice(0, 6)) {
      const pkgs = other.topPackages
        .slice(0, 4)
        .map((p) => `${p.name} ${(p.share * 100).toFixed(0)}%`)
        .join(", ");
      lines.push(
        `- ${other.totalMs.toFixed(0)} ms (running ${other.ours.join(", ") || "no workspace code"}): ${pkgs}`,
      );
    }
    lines.push("");
  }
  return lines;
}

/**
 * A workload's top SQL statements by time: its text, and the time and calls it took.
 * @typedef {[string, { ms: number; calls: number }][]} SqlProfile
 */

/**
 * Runs a workload with AWR_BENCH_SQL_PROFILE=1; resolves with its top statements by time.
 * @param {string[]} args
 * @param {{ cwd?: string | undefined }} [options]
 * @returns {Promise<SqlProfile>}
 */
export async function sqlProfile(args, { cwd = ROOT } = {}) {
  const result = await run(process.execPath, args, {
    cwd,
    env: { ...process.env, AWR_BENCH_SQL_PROFILE: "1" },
  });
  if (result.code !== 0)
    throw new Error(`SQL-profiled command failed (${result.code}): ${result.stderr.slice(-500)}`);
  const line = result.stdout.split("\n").find((l) => l.startsWith("SQLPROFILE "));
  if (!line) throw new Error("no SQLPROFILE line");
  return JSON.parse(line.slice("SQLPROFILE ".length));
}

/**
 * Markdown lines for a SQL profile.
 * @param {SqlProfile} statements
 * @param {number | string} calls the workload's calls, or words for them
 */
export function sqlProfileMarkdown(statements, calls) {
  const lines = [
    `Time inside SQLite by statement (same workload, ${calls} calls; statements timed one by one):`,
    "",
  ];
  lines.push("| statement | calls | total ms | ms per call |", "|---|---:|---:|---:|");
  for (const [sqlText, { ms, calls: n }] of statements) {
    lines.push(
      `| \`${sqlText.replaceAll("|", "\\|")}\` | ${n} | ${ms.toFixed(1)} | ${(ms / n).toFixed(2)} |`,
    );
  }
  lines.push("");
  return lines;
}
