import { join } from "node:path";
import { countTokens } from "@awr/awr-ledger";
import { assessFacts, failedChecks, generateBenchmarkProject } from "@awr/ledger-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, tempRoot } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

// A project in the shape of the original AWR's public benchmark, compiled for every active task
// at L1 (budget 5,000, with the task's goal) and L0 (budget 1,000), and checked by the exact-fact
// oracle against the generator's own statement of each task's facts.
describe.each(BACKENDS)("benchmark-shaped project on %s", (backend) => {
  let p: OpenProject;
  let project: ReturnType<typeof generateBenchmarkProject>;
  beforeAll(async () => {
    const { root, remove } = tempRoot("awr-benchmark-");
    project = generateBenchmarkProject(join(root, "project"));
    p = await openProjectAt(project.root, project.manifest_path, backend, remove);
  });
  afterAll(() => p.close());

  it("has the benchmark's shape: 150 tasks, 39 active, 13 with an unresolved dependency", () => {
    expect(project.tasks).toHaveLength(150);
    expect(project.expected).toHaveLength(39);
    expect(project.expected.filter((e) => e.unresolved_dependencies.length > 0)).toHaveLength(13);
    const statuses = project.expected.map((e) => e.work.status);
    for (const status of ["blocked", "planned", "in_progress"]) {
      expect(statuses.filter((s) => s === status)).toHaveLength(13);
    }
    // Rules of every scope kind reach some tasks and not others.
    const ruleCounts = new Set(project.expected.map((e) => e.rules.length));
    expect([...ruleCounts].sort()).toEqual([2, 3]);
  });

  it("states 100% of the required facts in every packet, L1 at 5000 and L0 at 1000, all complete", async () => {
    let assertions = 0;
    let passed = 0;
    const failures: string[] = [];
    for (const expected of project.expected) {
      const key = expected.work.id;
      const bootstrap = await p.ledger.call("awr_context_bootstrap", { work: key, budget: 1000 });
      const compiled = await compileL1(p.ledger, {
        work: key,
        goals: [expected.work.goal],
        budget: 5000,
      });
      expect(
        bootstrap.context.complete,
        `${key} L0: ${JSON.stringify(bootstrap.context.gaps)}`,
      ).toBe(true);
      expect(
        compiled.completeness.complete,
        `${key} L1: ${JSON.stringify(compiled.completeness.issues)}`,
      ).toBe(true);
      expect(bootstrap.token_estimate).toBeLessThanOrEqual(1000);
      expect(bootstrap.token_estimate).toBe(countTokens(bootstrap.rendered_context));
      expect(compiled.work_context?.token_estimate).toBeLessThanOrEqual(5000);
      expect(compiled.work_context?.token_estimate).toBe(
        countTokens(compiled.work_context?.rendered_context ?? ""),
      );
      const facts = assessFacts(expected, bootstrap, compiled);
      assertions += facts.assertions;
      passed += facts.passed;
      const failed = failedChecks(facts);
      if (failed.length > 0) failures.push(`${key}: ${failed.join(", ")}`);
    }
    expect(failures).toEqual([]);
    // 16 per task (2 criteria; 2 or 3 rules) + 4 per unresolved dependency.
    const rules = project.expected.reduce((n, e) => n + e.rules.length, 0);
    expect(assertions).toBe(39 * 14 + rules + 13 * 4);
    expect(passed).toBe(assertions);
  });

  it("fails the oracle when a required fact is missing from a packet", async () => {
    const expected = project.expected.find((e) => e.unresolved_dependencies.length > 0);
    if (expected === undefined) throw new Error("no task with a dependency");
    const bootstrap = await p.ledger.call("awr_context_bootstrap", { work: expected.work.id });
    const compiled = await compileL1(p.ledger, {
      work: expected.work.id,
      goals: [expected.work.goal],
    });
    const pack = compiled.work_context;
    if (pack === null) throw new Error("no packet");
    const blocker = expected.unresolved_dependencies[0]?.blocker ?? "";
    const stripped = {
      ...compiled,
      work_context: { ...pack, rendered_context: pack.rendered_context.replace(blocker, "") },
    };
    expect(failedChecks(assessFacts(expected, bootstrap, stripped))).toEqual([
      "unresolved_required_dependencies.blocker_0",
    ]);
  });
});
