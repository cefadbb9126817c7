import { createHash } from "node:crypto";
// The secret detector's cost where it will run: over every indexed source (against parsing the
// same source), on hostile input (against clean input of the same size), and on every write
// (against the request fingerprint every write already computes).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DIST, fmtRatio, load, median, ROOT, tempDir } from "./lib.mjs";

export const title = "Secret detector";

/** @type {[name: string, adapter: string, domain: string][]} */
const SOURCES = [
  ["GOALS.md", "markdown-heading-v1", "goal"],
  ["PLAN.md", "markdown-heading-v1", "plan"],
  ["RULES.md", "markdown-rules-v1", "rule"],
  ["DECISIONS.md", "markdown-heading-v1", "decision"],
  ["work-ledger.yaml", "yaml-ledger-v1", "work"],
];

const MIB = 1 << 20;
/** @param {string} unit */
const fill = (unit) => unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB);
/** The shapes of hostile-input.test.ts: each against one rule's worst case. */
const HOSTILE = {
  "identifier run": fill("a_"),
  "JWT starts": fill("-eyJ"),
  "URL without @": `a://b:${fill("c:")}`,
  "bearer words": fill("bearer "),
  "basic candidates": fill("basic AAAA "),
  "labels with placeholders": fill("password: *** "),
  "command prefixes": fill("AB=1 CD=2 EF=3 "),
  "inline env labels": fill("env: x "),
  "JSON escapes": fill("\\u0041\\n"),
  "full-width text": fill("ｐａｓｓ"),
  "unclosed definitions": fill("token:{"),
  "many small definitions": fill("token:\n  type: string\n"),
};

/**
 * Median milliseconds of `runs` calls of fn.
 * @param {() => unknown} fn
 * @param {number} runs
 */
function timeMs(fn, runs) {
  /** @type {number[]} */
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

/**
 * @param {import("./lib.mjs").BenchOptions} options
 * @returns {Promise<import("./lib.mjs").BenchResult>}
 */
export async function run({ quick }) {
  const { generateFixtureProject } = await load(DIST.fixtures);
  const { SOURCE_ADAPTERS } = await load(
    join(ROOT, "packages/awr-ledger/dist/projection/public.js"),
  );
  const { findSecret, findSecretsInSource, assertNoSecret } = await load(
    join(ROOT, "packages/awr-ledger/dist/secrets/public.js"),
  );
  const items = quick ? 150 : 1000;
  const fixture = generateFixtureProject(join(tempDir("secrets"), "project"), { items, seed: 1 });
  const files = SOURCES.map(([name, adapter, domain]) => ({
    text: readFileSync(join(fixture.root, name), "utf8"),
    adapter,
    context: { path: name, domain, options: {} },
  }));
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  const runs = quick ? 5 : 15;
  const scan = timeMs(() => {
    for (const f of files) findSecretsInSource(f.text);
  }, runs);
  const parse = timeMs(() => {
    for (const f of files) SOURCE_ADAPTERS[f.adapter](f.text, f.context);
  }, runs);

  const clean = timeMs(() => findSecretsInSource(fill("lorem ipsum dolor sit amet ")), 3);
  let worst = { name: "", ms: 0 };
  for (const [name, text] of Object.entries(HOSTILE)) {
    const ms = Math.max(
      timeMs(() => findSecret(text), 1),
      timeMs(() => findSecretsInSource(text), 1),
    );
    if (ms > worst.ms) worst = { name, ms };
  }

  const input = {
    project: "shop",
    expected_revision: 41,
    request_id: "req-01J9Z8K7QW",
    type: "test.run",
    work: "SHOP-12",
    summary: "Ran the checkout suite after the token budget change; 212 passed, 0 failed.",
    payload: {
      command: "CI=1 pnpm exec vitest run test/checkout",
      duration_ms: 8123,
      files: ["test/checkout/cart.test.ts", "test/checkout/payment.test.ts"],
      notes: "Bearer authentication flow covered; password rotation policy unchanged.",
    },
  };
  const calls = quick ? 2000 : 20000;
  /** @param {() => unknown} fn */
  const loop = (fn) => () => {
    for (let i = 0; i < calls; i++) fn();
  };
  /** @param {() => unknown} fn */
  const perCall = (fn) => (timeMs(loop(fn), 3) * 1000) / calls;
  const check = perCall(() => assertNoSecret(input));
  // What every journaled write already spends on its input: SHA-256 of its JSON (the request
  // fingerprint's work).
  const fingerprint = perCall(() =>
    createHash("sha256").update(JSON.stringify(input)).digest("hex"),
  );

  const cmd = "pnpm bench --only secrets";
  return {
    rows: [
      {
        figure: `scan of a ${items}-item fixture's sources (${(bytes / 1024).toFixed(0)} KiB)`,
        value: `${scan.toFixed(1)} ms`,
        baseline: `adapters parse them in ${parse.toFixed(1)} ms`,
        ratio: fmtRatio(scan / parse),
        goal: "≤ 1x parsing",
        met: scan <= parse,
        command: cmd,
      },
      {
        figure: `hostile 1 MiB input, worst of ${Object.keys(HOSTILE).length} shapes (${worst.name})`,
        value: `${worst.ms.toFixed(0)} ms`,
        baseline: `1 MiB of prose ${clean.toFixed(0)} ms`,
        ratio: fmtRatio(worst.ms / clean),
        goal: "≤ 1000 ms per MiB (linear)",
        met: worst.ms <= 1000,
        command: cmd,
      },
      {
        figure: "assertNoSecret on an awr_event_append input",
        value: `${check.toFixed(1)} µs`,
        baseline: `SHA-256 of the input's JSON ${fingerprint.toFixed(1)} µs`,
        ratio: fmtRatio(check / fingerprint),
        goal: "≤ 100 µs per write",
        met: check <= 100,
        command: cmd,
      },
    ],
  };
}
