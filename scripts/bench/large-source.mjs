// Fairness with a large source: while one project (its own Ledger, in this process) reindexes a
// 50 MB GOALS.md, another project's reads are timed. The parse runs in the ledger's worker
// thread and the projection is written in slices, so the other project keeps answering.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DIST,
  fixtureProject,
  fmtMs,
  fmtRatio,
  load,
  percentile,
  sampleLatency,
  tempDir,
} from "./lib.mjs";

export const title = "Reads of one project while another reindexes a 50 MB source";
/** Minutes of indexing: full run only. */
export const fullOnly = true;

const MB = 1024 * 1024;

/**
 * A project whose GOALS.md holds `bytes` of sections, not yet initialised.
 * @param {number} bytes
 */
function largeProject(bytes) {
  const root = tempDir("large-source");
  const body = "Keep this part of the large plan readable and searchable for every agent. ".repeat(
    26,
  );
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const section = `## Goal number ${i} {#g${i}}\n\n${body}\n\n`;
    parts.push(section);
    size += section.length;
  }
  writeFileSync(join(root, "GOALS.md"), parts.join(""));
  writeFileSync(join(root, "work-ledger.yaml"), "work_items: []\n");
  writeFileSync(
    join(root, "project.toml"),
    '[project]\nname = "large"\n[[sources]]\ndomain = "ledger"\nrole = "primary"\npath = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n' +
      `[[sources]]\ndomain = "goal"\nrole = "supporting"\npath = "GOALS.md"\nadapter = "markdown-heading-v1"\n[sources.options]\nmax_entities = 1000000\nmax_bytes = ${bytes + MB}\n`,
  );
  return { root, sections: parts.length };
}

export async function run() {
  const { initProject, openLedger } = await load(DIST.ledger);
  const small = await fixtureProject(150);
  const other = await openLedger({ root: small.root });
  const caller = { client: "stdio" };
  const works = small.items.map((i) => i.work);
  /** @param {number} i */
  const read = (i) => other.call("awr_work_get", { work: works[i % works.length] }, caller);
  try {
    const idle = await sampleLatency(read, { n: 200 });
    const large = largeProject(50 * MB);
    const started = performance.now();
    let done = false;
    const indexing = initProject({
      root: large.root,
      manifest: join(large.root, "project.toml"),
      accept: true,
    }).finally(() => {
      done = true;
    });
    /** @type {number[]} */
    const busy = [];
    for (let i = 0; !done; i++) {
      const t0 = performance.now();
      await read(i);
      busy.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const result = await indexing;
    const seconds = (performance.now() - started) / 1000;
    const p95 = percentile(busy, 95);
    const entities = result.sources.reduce(
      (/** @type {number} */ n, /** @type {{ entity_count: number }} */ s) => n + s.entity_count,
      0,
    );
    return {
      rows: [
        {
          figure: "work_get p95, other project, during 50 MB reindex",
          value: fmtMs(p95),
          baseline: `nothing indexing ${fmtMs(percentile(idle, 95))}`,
          ratio: fmtRatio(p95 / percentile(idle, 95)),
          goal: "< 200 ms",
          met: p95 < 200,
          command: "pnpm bench --only sources",
        },
        {
          figure: "slowest of those reads",
          value: fmtMs(Math.max(...busy)),
          baseline: `nothing indexing ${fmtMs(Math.max(...idle))}`,
          ratio: fmtRatio(Math.max(...busy) / Math.max(...idle)),
          goal: "—",
          met: undefined,
          command: "pnpm bench --only sources",
        },
        {
          figure: `50 MB GOALS.md indexed (${entities} headings)`,
          value: `${seconds.toFixed(1)} s`,
          baseline: `${busy.length} reads answered meanwhile`,
          ratio: "—",
          goal: "—",
          met: undefined,
          command: "pnpm bench --only sources",
        },
      ],
    };
  } finally {
    await other.close();
  }
}
