// Figure 6 (full run only): 10,000 work items and 1,000,000 events, on SQLite and (when a server
// is available) PostgreSQL. The five reads' p95 against the 150-item fixture on the same backend,
// as a ratio, in three states: repeated at one revision, the first read after a journaled write
// (an event), and the first read after a work item changed in place (a transition's projection
// change). See scale-projects.mjs for how the projects are made.
import {
  benchPostgres,
  DIST,
  fmtInt,
  fmtMs,
  fmtRatio,
  load,
  percentile,
  revisionBump,
  sampleLatency,
  workItemUpdate,
} from "./lib.mjs";
import { READS } from "./reads.mjs";
import { scaleProjects } from "./scale-projects.mjs";

export const title = "Scale: 10,000 items, 1,000,000 events";
export const fullOnly = true;

const ITEMS = 10_000;
const EVENTS = 1_000_000;
/**
 * @type {[
 *   { name: string, write: () => undefined },
 *   { name: string, write: (ledger: any) => () => Promise<void> },
 *   { name: string, write: (ledger: any, works: string[]) => () => Promise<void> },
 * ]}
 */
const MODES = [
  { name: "same revision", write: () => undefined },
  { name: "first read after a write", write: (ledger) => revisionBump(ledger) },
  {
    name: "first read after a work item changed",
    write: (ledger, works) => workItemUpdate(ledger, works.slice(0, 40)),
  },
];

/**
 * The rows of one backend, and with `profileMisses` a CPU profile of each missed goal (taken on
 * one backend only: a profile shows the ledger's own code, the same on both).
 * @param {string} backend
 * @param {Awaited<ReturnType<typeof scaleProjects>>} projects
 * @param {{ n: number; nFresh: number; profileMisses?: boolean }} sizes timed calls per read
 */
async function measureBackend(backend, projects, { n, nFresh, profileMisses = false }) {
  const { openLedger } = await load(DIST.ledger);
  const caller = { client: "stdio" };
  const small = { ...projects.small, ledger: await openLedger({ root: projects.small.root }) };
  const big = { ...projects.big, ledger: await openLedger({ root: projects.big.root }) };
  /** @type {import("./lib.mjs").BenchRow[]} */
  const rows = [];
  /** @type {import("./lib.mjs").BenchProfile[]} */
  const profiles = [];
  try {
    for (const mode of MODES) {
      const writes = new Map([small, big].map((p) => [p, mode.write(p.ledger, p.works)]));
      for (const read of READS) {
        // Alternate blocks: small, big, small, big, so drift hits both.
        /** @type {number[]} */
        const s = [];
        /** @type {number[]} */
        const b = [];
        const fresh = writes.get(small) !== undefined;
        const perBlock = fresh ? nFresh / 2 : n / 2;
        for (let block = 0; block < 4; block++) {
          const [p, into] = block % 2 === 0 ? [small, s] : [big, b];
          const samples = await sampleLatency(
            (i) => p.ledger.execute(read.tool, read.args(p.works[i % p.works.length], i), caller),
            { n: perBlock, warmup: fresh ? 2 : 20, before: writes.get(p) },
          );
          into.push(...samples);
        }
        const ratio = percentile(b, 95) / percentile(s, 95);
        const met = ratio <= 2;
        rows.push({
          figure: `${read.name} p95 at 10k items / 1M events, ${backend} (${mode.name})`,
          value: fmtMs(percentile(b, 95)),
          baseline: `150-item fixture ${fmtMs(percentile(s, 95))}`,
          ratio: fmtRatio(ratio),
          goal: "≤ 2x",
          met,
          command: "pnpm bench --only scale",
        });
        if (!met && profileMisses && mode.name !== MODES[2].name) {
          // About five seconds of work per profile, whatever the read costs.
          const calls = Math.max(10, Math.min(300, Math.round(5000 / percentile(b, 95))));
          profiles.push({
            title: `${read.name} at 10k items / 1M events, ${mode.name} (${fmtRatio(ratio)} of the small fixture)`,
            args: [
              "scripts/bench/workload.mjs",
              "reads",
              big.root,
              read.tool,
              String(calls),
              /** @type {string} the fixture has active items */ (big.works[0]),
              ...(fresh ? ["bump"] : []),
            ],
            sql: true,
            calls,
          });
        }
      }
    }
  } finally {
    await small.ledger.close();
    await big.ledger.close();
  }
  return { rows, profiles };
}

/**
 * @param {import("./lib.mjs").BenchOptions} options
 * @returns {Promise<import("./lib.mjs").BenchResult>}
 */
export async function run({ quick }) {
  const sizes = { n: quick ? 60 : 300, nFresh: quick ? 20 : 60 };
  /** @type {import("./lib.mjs").BenchRow[]} */
  const rows = [];
  /** @type {import("./lib.mjs").BenchProfile[]} */
  const profiles = [];
  /** @type {string[]} */
  const notes = [];
  /** @param {string} backend @param {{ initSeconds: number; insertSeconds: number }} p */
  const setup = (backend, p) =>
    `${backend}: the fixture generator wrote and \`initProject\` indexed ${fmtInt(ITEMS)} items in ${p.initSeconds.toFixed(1)} s; ` +
    `${fmtInt(EVENTS)} events were inserted directly through SQL in ${p.insertSeconds.toFixed(1)} s.`;

  const sqlite = await scaleProjects({ items: ITEMS, events: EVENTS });
  notes.push(setup("SQLite", sqlite));
  const measured = await measureBackend("SQLite", sqlite, { ...sizes, profileMisses: true });
  rows.push(...measured.rows);
  profiles.push(...measured.profiles);

  const postgres = benchPostgres();
  if (postgres === undefined) {
    notes.push(
      "PostgreSQL: no server (set AWR_BENCH_DATABASE_URL, or run as root with PostgreSQL 15 installed); its rows are missing.",
    );
  } else {
    try {
      const pg = await scaleProjects({ items: ITEMS, events: EVENTS, postgres });
      notes.push(setup("PostgreSQL", pg));
      rows.push(...(await measureBackend("PostgreSQL", pg, sizes)).rows);
    } finally {
      postgres.stop();
    }
  }
  notes.push(
    `Half of the events name a work item. ${sizes.n} timed calls per read on each project at one revision, and ${sizes.nFresh} ` +
      "each preceded by an untimed write, in alternating blocks (small, big, small, big): a journaled `eventAppend` " +
      "(`first read after a write`), or a work item's status flipped between ready and planned in the entities table with " +
      "a revision spent, as a transition's domain commit does, written directly because at 10,000 items a real transition " +
      "spends seconds rewriting the 7 MB YAML source (`first read after a work item changed`).",
  );
  return { rows, notes, profiles };
}
