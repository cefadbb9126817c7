// Figure 5: the original AWR's own public context benchmark corpus (150 tasks, 39 active), read
// by this implementation: full-source tokens, L1 (budget 5,000) and L0 (budget 1,000) packet
// sizes over every active task, and the exact-fact oracle's score, beside the original's
// published 18,955 / 4,998 / 676-of-676. The corpus lives outside the repository (shared
// fixtures); without it the row is skipped with a note. It is copied to a temp dir first.
import { cpSync, existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { DIST, fmtInt, load, ROOT, tempDir } from "./lib.mjs";

export const title = "The original's public benchmark corpus";

/** Beside the repository in CI and on developer machines; AWR_PUBLIC_BENCHMARK overrides it. */
export const PUBLIC_CORPUS =
  process.env.AWR_PUBLIC_BENCHMARK ??
  join(ROOT, "..", "shared", "fixtures", "awr-public-benchmark");
const SOURCES = ["GOALS.md", "RULES.md", "work-ledger.yaml"];
const PUBLISHED = { baseline: 18_955, l1Max: 4_998, l0Max: 227, facts: "676/676" };

/**
 * A work item of the corpus's ledger, as far as the oracle reads it.
 * @typedef {{ id: string; status: string; goal?: string; depends_on?: string[] }} Task
 */

/**
 * The facts the oracle expects, read straight from the corpus files (not through AWR).
 * @param {string} root
 */
function expectedFacts(root) {
  const { parse } = createRequire(join(ROOT, "packages/awr-ledger/package.json"))("yaml");
  const ledger = parse(readFileSync(join(root, "work-ledger.yaml"), "utf8"));
  /** @type {Task[]} */
  const tasks = ledger.work_items;
  const byId = new Map(tasks.map((t) => [t.id, t]));
  /** @type {{ key: string | undefined; text: string }[]} */
  const rules = [];
  const rulesText = readFileSync(join(root, "RULES.md"), "utf8");
  for (const section of rulesText.split(/^(?=# )/m).filter((s) => s.startsWith("# "))) {
    const [heading = "", ...body] = section.split("\n");
    const match = /^# (.*?)\s*\{#([^\s}]+)([^}]*)\}\s*$/.exec(heading);
    if (match === null || !/severity=hard/.test(match[3] ?? "")) continue;
    rules.push({ key: match[2], text: `${match[1]}\n\n${body.join("\n").trim()}` });
  }
  /**
   * The task's dependencies, transitively.
   * @param {Task} task
   * @param {Map<string, Task>} [seen]
   * @returns {Task[]}
   */
  const closure = (task, seen = new Map()) => {
    for (const id of task.depends_on ?? []) {
      const dep = byId.get(id);
      if (dep && !seen.has(id)) {
        seen.set(id, dep);
        closure(dep, seen);
      }
    }
    return [...seen.values()];
  };
  return tasks
    .filter((t) => t.status !== "completed")
    .map((t) => ({
      work: t,
      rules,
      unresolved_dependencies: closure(t).filter((d) => d.status !== "completed"),
    }));
}

/** @returns {Promise<import("./lib.mjs").BenchResult>} */
export async function run() {
  if (!existsSync(join(PUBLIC_CORPUS, "work-ledger.yaml"))) {
    return {
      rows: [],
      skipped: `the corpus is not at ${PUBLIC_CORPUS} (a shared fixture beside the repository; set AWR_PUBLIC_BENCHMARK to its directory)`,
      profiles: [],
    };
  }
  const root = join(tempDir("public"), "project");
  cpSync(PUBLIC_CORPUS, root, { recursive: true });
  const { initProject, openLedger, countTokens } = await load(DIST.ledger);
  const { assessFacts, failedChecks } = await load(DIST.fixtures);
  const baseline = countTokens(SOURCES.map((f) => readFileSync(join(root, f), "utf8")).join("\n"));
  await initProject({ root, manifest: join(root, "project.toml"), accept: true });
  const ledger = await openLedger({ root });
  /** @type {number[]} */
  const l1 = [];
  /** @type {number[]} */
  const l0 = [];
  let assertions = 0;
  let passed = 0;
  let incomplete = 0;
  /** @type {string[]} */
  const failures = [];
  try {
    for (const expected of expectedFacts(root)) {
      const key = expected.work.id;
      try {
        const bootstrap = await ledger.call("awr_context_bootstrap", { work: key, budget: 1000 });
        // An incomplete packet is ContextIncomplete carrying the whole result.
        const compiled = await ledger
          .call("awr_context_compile", { work: key, goals: [expected.work.goal], budget: 5000 })
          .catch((/** @type {any} */ error) => {
            if (error?.code === "ContextIncomplete" && error.result !== undefined)
              return error.result;
            throw error;
          });
        if (!bootstrap.context.complete || !compiled.completeness.complete) incomplete++;
        for (const [level, pack] of [
          ["L0", bootstrap],
          ["L1", compiled.work_context],
        ]) {
          if (countTokens(pack?.rendered_context ?? "") !== pack?.token_estimate) {
            failures.push(`${key}: ${level} token_estimate differs from the rendered text's count`);
          }
        }
        l0.push(bootstrap.token_estimate);
        l1.push(compiled.work_context?.token_estimate ?? 0);
        const facts = assessFacts(expected, bootstrap, compiled);
        assertions += facts.assertions;
        passed += facts.passed;
        const failed = failedChecks(facts);
        if (failed.length > 0) failures.push(`${key}: ${failed.join(", ")}`);
      } catch (caught) {
        const error = /** @type {Error & { code?: string }} */ (caught);
        failures.push(`${key}: ${error.code ?? ""} ${error.message}`);
      }
    }
  } finally {
    await ledger.close();
  }
  /** @param {number[]} values */
  const max = (values) => Math.max(...values);
  /** @param {number[]} values */
  const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const cmd = "pnpm bench --only public";
  return {
    rows: [
      {
        figure: "public corpus: full sources / max L1 / mean L1 tokens",
        value: `${fmtInt(baseline)} / ${fmtInt(max(l1))} / ${fmtInt(mean(l1))}`,
        baseline: `original: ${fmtInt(PUBLISHED.baseline)} / ${fmtInt(PUBLISHED.l1Max)} / —`,
        ratio: `${(100 * (1 - max(l1) / baseline)).toFixed(1)}% minimum reduction`,
        goal: `max L1 ≤ ${fmtInt(PUBLISHED.l1Max)}`,
        met: max(l1) <= PUBLISHED.l1Max && failures.length === 0,
        command: cmd,
      },
      {
        figure: "public corpus: max / mean L0 tokens (budget 1,000)",
        value: `${fmtInt(max(l0))} / ${fmtInt(mean(l0))}`,
        baseline: `original: max ${fmtInt(PUBLISHED.l0Max)}`,
        ratio: "—",
        goal: "≤ 1,000 (budget)",
        met: max(l0) <= 1000 && failures.length === 0,
        command: cmd,
      },
      {
        figure: "public corpus: exact facts found / required (L1 and L0)",
        value: `${passed}/${assertions} (${l1.length} active tasks; ${incomplete} reported incomplete)`,
        baseline: `original: ${PUBLISHED.facts}`,
        ratio: "—",
        goal: "every fact, every packet complete",
        met: passed === assertions && assertions > 0 && incomplete === 0 && failures.length === 0,
        command: cmd,
      },
    ],
    notes: [
      "Corpus: the original AWR's public benchmark files (GOALS.md, RULES.md, work-ledger.yaml), copied to a temp dir. " +
        "Full sources = those three files sorted and joined with one LF, o200k_base (the ledger's countTokens). " +
        "For every active task: `awr_context_bootstrap` (L0, budget 1,000) and awr_context_compile with the task's goal (L1, budget 5,000), " +
        "then the exact-fact oracle (@awr/ledger-fixtures assessFacts), whose expected facts are read from the corpus files themselves.",
      ...(failures.length ? [`Failed checks: ${failures.slice(0, 5).join("; ")}`] : []),
    ],
    profiles: [],
  };
}
