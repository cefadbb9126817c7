#!/usr/bin/env node
// `pnpm bench`: AWR's benchmarks, measured side by side in one run (ratios, since these machines
// are noisy), printed as a table and written to BENCHMARKS.md. Runs against the built packages
// (dist/): builds first when a built entry point is missing.
//
//   pnpm bench                 the full run (includes the 10k-item / 1M-event scale run)
//   pnpm bench --quick         a small smoke run (no scale run, small counts)
//   pnpm bench --only a,b      only these benchmarks (names below); implies --no-write unless --write
//   pnpm bench --no-write      print only, leave BENCHMARKS.md alone
//   pnpm bench --no-profile    skip the CPU profiles of missed goals
//   pnpm bench --build         run `pnpm build` first even if dist exists
//   pnpm bench --only sources  the 50 MB source fairness run alone (full runs include it)
//   pnpm bench --only claims   the claims soak alone (16 claimers, 1,000 trials per backend)
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { ensureBuilt, ROOT, removeTemps, stopServices } from "./bench/lib.mjs";

const BENCHMARKS = {
  client: "./bench/client-calls.mjs",
  latency: "./bench/tool-latency.mjs",
  cli: "./bench/cli-cold.mjs",
  context: "./bench/context-tokens.mjs",
  public: "./bench/public-benchmark.mjs",
  writes: "./bench/writes.mjs",
  scale: "./bench/scale.mjs",
  memory: "./bench/memory.mjs",
  secrets: "./bench/secrets.mjs",
  sources: "./bench/large-source.mjs",
  claims: "./bench/claims.mjs",
  workflow: "./bench/workflow.mjs",
  "compact-recovery": "./bench/compact-recovery.mjs",
};

const argv = process.argv.slice(2);
/** @param {string} name */
const flag = (name) => argv.includes(`--${name}`);
const onlyIndex = argv.indexOf("--only");
const only = onlyIndex >= 0 ? (argv[onlyIndex + 1] ?? "").split(",").filter(Boolean) : undefined;
const quick = flag("quick");
const write = flag("write") || (!flag("no-write") && only === undefined);
const profile = !flag("no-profile");
for (const name of only ?? []) {
  if (!(name in BENCHMARKS)) {
    console.error(
      `bench: unknown benchmark "${name}" (known: ${Object.keys(BENCHMARKS).join(", ")})`,
    );
    process.exit(2);
  }
}

// Interrupted (Ctrl-C, or a supervisor's timeout): stop the services, remove the temp projects.
for (const [signal, code] of /** @type {const} */ ([
  ["SIGINT", 130],
  ["SIGTERM", 143],
])) {
  process.on(signal, () => {
    stopServices();
    removeTemps();
    process.exit(code);
  });
}

ensureBuilt({ force: flag("build") });
const { profileNode, profileMarkdown, sqlProfile, sqlProfileMarkdown } = await import(
  "./bench/profile.mjs"
);

const started = new Date();
const startLoad = /** @type {number} */ (loadavg()[0]);
/**
 * One benchmark's part of the report: its result, or why it has none.
 * @typedef {{ name: string; title: string; seconds?: number; error?: string; skipped?: string; profiles?: ProfileResult[] } & Partial<Omit<import("./bench/lib.mjs").BenchResult, "profiles">>} Section
 */
/**
 * A profile a benchmark asked for, as taken: its summary and SQL profile, or why it failed.
 * @typedef {(Omit<import("./bench/lib.mjs").BenchProfile, "sql"> & { summary: import("./bench/profile.mjs").NodeProfile; sql: import("./bench/profile.mjs").SqlProfile | undefined; error?: undefined }) | (import("./bench/lib.mjs").BenchProfile & { error: string; summary?: undefined })} ProfileResult
 */
/** @type {Section[]} */
const sections = [];
let failures = 0;
try {
  for (const [name, path] of Object.entries(BENCHMARKS)) {
    if (only && !only.includes(name)) continue;
    const mod = await import(path);
    if (mod.fullOnly && quick) {
      sections.push({
        name,
        title: mod.title,
        skipped: "full run only (`pnpm bench` without --quick)",
      });
      continue;
    }
    process.stderr.write(`bench: ${name}…\n`);
    const t0 = performance.now();
    try {
      /** @type {import("./bench/lib.mjs").BenchResult} */
      const result = await mod.run({ quick });
      /** @type {ProfileResult[]} */
      const profiles = [];
      if (profile) {
        for (const p of result.profiles ?? []) {
          process.stderr.write(`bench: profiling ${p.title}…\n`);
          try {
            const summary = await profileNode(p.args, { cwd: p.cwd, tree: p.tree });
            const sql = p.sql ? await sqlProfile(p.args, { cwd: p.cwd }) : undefined;
            profiles.push({ ...p, summary, sql });
          } catch (error) {
            profiles.push({ ...p, error: String(/** @type {Error} */ (error)?.message ?? error) });
          }
        }
      }
      sections.push({
        name,
        title: mod.title,
        ...result,
        profiles,
        seconds: (performance.now() - t0) / 1000,
      });
    } catch (error) {
      failures++;
      const failure = /** @type {Error | undefined} */ (error);
      process.stderr.write(`bench: ${name} failed: ${failure?.stack ?? error}\n`);
      sections.push({ name, title: mod.title, error: String(failure?.message ?? error) });
    } finally {
      stopServices();
    }
  }
} finally {
  removeTemps();
}

const rows = sections.flatMap((s) => s.rows ?? []);
/** @param {boolean | null | undefined} met */
const metText = (met) => (met === true ? "yes" : met === false ? "**no**" : "—");
printTable(rows);
if (write) {
  writeFileSync(join(ROOT, "BENCHMARKS.md"), markdown());
  console.log(`\nwrote BENCHMARKS.md`);
}
process.exit(failures ? 1 : 0);

/** @param {import("./bench/lib.mjs").BenchRow[]} list */
function printTable(list) {
  const header = ["figure", "measured", "baseline", "ratio", "goal", "met?", "command"];
  const data = list.map((r) => [
    r.figure,
    r.value,
    r.baseline,
    r.ratio,
    r.goal,
    r.met === true ? "yes" : r.met === false ? "NO" : "—",
    r.command,
  ]);
  const widths = header.map((h, i) =>
    Math.min(60, Math.max(h.length, ...data.map((d) => String(d[i]).length))),
  );
  /** @param {unknown} text @param {number} i */
  const cell = (text, i) =>
    String(text)
      .slice(0, widths[i])
      .padEnd(/** @type {number} */ (widths[i]));
  console.log(header.map(cell).join(" | "));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const d of data) console.log(d.map(cell).join(" | "));
  for (const s of sections) {
    if (s.error) console.log(`\n${s.name}: FAILED: ${s.error}`);
    if (s.skipped) console.log(`\n${s.name}: skipped: ${s.skipped}`);
  }
}

function gitRevision() {
  try {
    const rev = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: ROOT,
      encoding: "utf8",
    }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" }).trim() !== "";
    return `${rev}${dirty ? " (with uncommitted changes)" : ""}`;
  } catch {
    return "unknown";
  }
}

function markdown() {
  /** @param {unknown} text */
  const esc = (text) => String(text).replaceAll("|", "\\|");
  const lines = [
    "# Benchmarks",
    "",
    "Written by `pnpm bench` (scripts/bench.mjs; one module per figure in scripts/bench/). Do not edit by hand: rerun it.",
    "These machines are small and shared, so every figure is measured side by side with its baseline in the same run, and",
    "the ratio is the number to read. No unit test asserts a timing.",
    "",
    "Run it with `pnpm bench` (full, about ten minutes; includes the 10k-item / 1M-event scale run) or `pnpm bench --quick`",
    "(a smoke run with small counts, no scale run). It builds first if a package's dist/ is missing (`--build` forces it);",
    "`--only client,latency,cli,context,public,writes,scale,memory,claims,compact-recovery` runs a subset without rewriting this file (add `--write` to",
    "rewrite it anyway); `--no-profile` skips the CPU profiles taken when a goal is missed. Each row's command reruns it.",
    "",
    `- Run: ${started.toISOString()}, ${quick ? "**quick smoke run** (`pnpm bench --quick`: small counts, no scale run)" : "full run (`pnpm bench`)"}`,
    `- Machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${process.platform}; ` +
      `load average ${startLoad.toFixed(2)} at start, ${/** @type {number} */ (loadavg()[0]).toFixed(2)} at the end (other work shares this machine)`,
    `- Code: ${gitRevision()}; packages from their built dist/ (\`pnpm build\`)`,
    "- The public Rust AWR's own published figures are not available offline; no Rust numbers are shown or invented here.",
    "",
    "| figure | measured | baseline | ratio | goal | met? | command |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${esc(r.figure)} | ${esc(r.value)} | ${esc(r.baseline)} | ${esc(r.ratio)} | ${esc(r.goal)} | ${metText(r.met)} | \`${esc(r.command)}\` |`,
    ),
    "",
  ];
  for (const s of sections) {
    lines.push(`## ${s.title}`, "");
    if (s.skipped) lines.push(`Skipped: ${s.skipped}.`, "");
    if (s.error) lines.push(`**Failed:** ${s.error}`, "");
    for (const note of s.notes ?? []) lines.push(`- ${note}`);
    if (s.notes?.length) lines.push("");
    if (s.seconds !== undefined) lines.push(`(${s.seconds.toFixed(0)} s)`, "");
    const missed = (s.rows ?? []).filter((r) => r.met === false);
    if (missed.length > 0 && (s.profiles?.length ?? 0) === 0 && s.whereTimeGoes === undefined) {
      lines.push(`Missed: ${missed.map((r) => r.figure).join("; ")}.`, "");
    }
    for (const w of s.whereTimeGoes ?? []) lines.push(w);
    if (s.whereTimeGoes?.length) lines.push("");
    for (const p of s.profiles ?? []) {
      if (p.error) lines.push(`#### ${p.title}`, "", `Profile failed: ${p.error}`, "");
      else
        lines.push(
          ...profileMarkdown(
            p.title,
            `${p.tree ? "NODE_OPTIONS=--import=scripts/bench/cpu-profile-preload.mjs node" : "node --cpu-prof"} ${p.args.map((a) => a.replace(ROOT + "/", "")).join(" ")}`,
            /** @type {import("./bench/profile.mjs").NodeProfile} */ (p.summary),
          ),
          ...(p.sql
            ? sqlProfileMarkdown(
                /** @type {import("./bench/profile.mjs").SqlProfile} */ (p.sql),
                p.calls ?? "the same",
              )
            : []),
        );
    }
  }
  lines.push(
    "## Chaos tests",
    "",
    "Not benchmarks, but the other half of this issue: they run in the ordinary test suite (`pnpm test`), CI-sized, and",
    "`AWR_CHAOS_FULL=1` raises their counts. `npx vitest run packages/awr-ledger/test/chaos packages/awr-server/test/chaos packages/mcp-client/test/chaos` runs only them.",
    "",
    "- packages/awr-ledger/test/chaos-kill-after-begin / -after-domain: `kill -9` of a writer process at each journal phase",
    "  (AWR_TEST_FAULT), 10 times per phase and backend (50 full): nothing lost, nothing doubled, the dead holder's lease",
    "  taken over at once, every unknown outcome settled by operation recover. chaos-kill-random: kills at random moments.",
    "- packages/awr-server/test/chaos-fuzz-stdio / chaos-fuzz-http: 10,000 seeded fast-check frames into `awr-mcp --project`",
    "  and the shared HTTP service: it stays up, answers malformed input with JSON-RPC errors or skips it, serves a real call",
    "  afterwards, and its memory plateaus. chaos-sigterm: SIGTERM under 32 clients: no answered request is cut, every",
    "  accepted write is committed exactly once, nothing is left unknown.",
    "- packages/mcp-client/test/chaos-healing: MCPManager heals round after round of `kill -9` (stdio) and HTTP restarts",
    "  with calls in flight; chaos-process-cycles: 100 connect/close cycles (some behind a wrapper shell) leave no process.",
    "",
  );
  return `${lines.join("\n").trimEnd()}\n`;
}
