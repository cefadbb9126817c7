import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { initProject, openLedger } from "@awr/awr-ledger";
import { describe, expect, it } from "vitest";
import { tempRoot } from "./helpers/backends.js";
import { openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };
const HEADINGS = 40_000;

/** A project whose GOALS.md holds HEADINGS sections (about 2.5 MB), with its caps raised. */
function largeProject(): { root: string; remove(): void } {
  const { root, remove } = tempRoot();
  const sections = Array.from(
    { length: HEADINGS },
    (_, i) =>
      `## Goal number ${i} {#g${i}}\n\nKeep section ${i} of the large plan readable and searchable.\n`,
  );
  writeFileSync(join(root, "GOALS.md"), sections.join("\n"));
  writeFileSync(join(root, "work-ledger.yaml"), "work_items: []\n");
  writeFileSync(
    join(root, "project.toml"),
    '[project]\nname = "large"\n[[sources]]\ndomain = "ledger"\nrole = "primary"\npath = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n' +
      '[[sources]]\ndomain = "goal"\nrole = "supporting"\npath = "GOALS.md"\nadapter = "markdown-heading-v1"\n[sources.options]\nmax_entities = 100000\nmax_bytes = 16777216\n',
  );
  return { root, remove };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
}

// A behavioural bound on blocking, not a speed benchmark: while one project indexes a large
// source in this process (parsed in the worker thread, written in slices), another project's
// reads keep answering. Parsing and writing 40 000 sections on the main thread in one go takes
// seconds, which would put the slowest reads far above the bound.
describe("one process, two projects", () => {
  it("answers the second project's reads while the first indexes a large source (p95 < 200 ms)", async () => {
    const large = largeProject();
    const small = await openFixtureProject("basic", "sqlite");
    try {
      const indexing = initProject({
        root: large.root,
        manifest: join(large.root, "project.toml"),
        accept: true,
      });
      let done = false;
      void indexing.finally(() => {
        done = true;
      });
      const latencies: number[] = [];
      for (let i = 0; !done; i++) {
        const started = performance.now();
        await small.ledger.call("awr_project_status", { view: "full" }, caller);
        await small.ledger
          .call("awr_search", { text: `payment ${i}` }, caller)
          .catch(() => undefined);
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const result = await indexing;
      expect(result.sources.find((s) => s.path === "GOALS.md")?.entity_count).toBe(HEADINGS);
      // Enough reads overlapped the indexing to make the percentile mean something.
      expect(latencies.length).toBeGreaterThanOrEqual(20);
      expect(percentile(latencies, 95)).toBeLessThan(200);
      const ledger = await openLedger({ root: large.root });
      try {
        expect(
          (await ledger.call("awr_project_status", { view: "full" }, caller)).entity_counts?.[
            "goal"
          ],
        ).toBe(HEADINGS);
      } finally {
        await ledger.close();
      }
    } finally {
      await small.close();
      large.remove();
    }
  }, 120_000);
});
