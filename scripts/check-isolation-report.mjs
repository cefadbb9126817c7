#!/usr/bin/env node
// Reads vitest's JSON report (the file .ci/run passes to `pnpm test`) and checks the isolation
// suite in apps/service/test/isolation/: each of the 20 condition ids of its conditions.json must
// have passed under both `sqlite` and `postgres`, none may be skipped, and no case may carry an id
// the file does not list. Prints the 20 x 2 matrix; exits 1 on any gap. The design is
// docs/design/isolation-conditions.md.
//
// Usage: node scripts/check-isolation-report.mjs REPORT.json
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const BACKENDS = ["sqlite", "postgres"];
const SUITE_DIR = "apps/service/test/isolation/";
const conditionsFile = fileURLToPath(new URL(`../${SUITE_DIR}conditions.json`, import.meta.url));

const reportPath = process.argv[2];
if (!reportPath) {
  console.error(
    "usage: node scripts/check-isolation-report.mjs REPORT.json (vitest's JSON report)",
  );
  process.exit(2);
}

let report;
try {
  report = JSON.parse(readFileSync(reportPath, "utf8"));
} catch (error) {
  console.error(
    `cannot read the vitest JSON report ${reportPath}: ${/** @type {Error} */ (error).message}`,
  );
  process.exit(1);
}
/** @type {string[]} */
const ids = JSON.parse(readFileSync(conditionsFile, "utf8")).conditions.map(
  (/** @type {{ id: string }} */ c) => c.id,
);
const known = new Set(ids);

/**
 * id -> backend -> the statuses seen (a case must run exactly once per backend).
 * @type {Map<string, Map<string, string[]>>}
 */
const seen = new Map(ids.map((id) => [id, new Map(BACKENDS.map((b) => [b, []]))]));
/** @type {string[]} */
const problems = [];
for (const file of report.testResults ?? []) {
  if (
    !String(file.name ?? "")
      .replaceAll("\\", "/")
      .includes(SUITE_DIR)
  )
    continue;
  if (file.status === "failed" && (file.assertionResults ?? []).length === 0) {
    problems.push(`${file.name} failed to load: ${String(file.message ?? "").split("\n")[0]}`);
  }
  for (const result of file.assertionResults ?? []) {
    /** @type {string | undefined} */
    const ranOn = (result.ancestorTitles ?? []).find((/** @type {string} */ t) =>
      BACKENDS.includes(t),
    );
    if (!known.has(result.title)) {
      problems.push(
        `unknown condition id "${result.title}" in ${file.name} (not in conditions.json)`,
      );
      continue;
    }
    if (ranOn === undefined) {
      problems.push(
        `${result.title} in ${file.name} is not inside a "sqlite" or "postgres" describe`,
      );
      continue;
    }
    seen.get(result.title)?.get(ranOn)?.push(result.status);
  }
}

/** @param {string[]} statuses */
const cell = (statuses) => {
  if (statuses.length === 0) return "missing";
  if (statuses.length > 1) return `x${statuses.length}`;
  return /** @type {string} */ (statuses[0]);
};
const width = Math.max(...ids.map((id) => id.length));
console.log(`${"condition".padEnd(width)}  ${BACKENDS.map((b) => b.padEnd(8)).join("  ")}`);
let passedCells = 0;
let missedCells = 0;
for (const [index, id] of ids.entries()) {
  const cells = BACKENDS.map((b) => cell(seen.get(id)?.get(b) ?? []));
  for (const value of cells) {
    if (value === "passed") passedCells++;
    else missedCells++;
  }
  console.log(`${id.padEnd(width)}  ${cells.map((v) => v.padEnd(8)).join("  ")}  (${index + 1})`);
}
const total = ids.length * BACKENDS.length;
console.log(`\n${passedCells} of ${total} condition cases passed`);
if (missedCells > 0) {
  problems.push(
    `${missedCells} condition cases did not pass (failed, skipped, missing or run twice: see the matrix)`,
  );
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`isolation: ${problem}`);
  process.exit(1);
}
