// Figure 6 (full run only): 10,000 work items and 1,000,000 events. The same five reads' warm
// p95 against the 150-item fixture, as a ratio. The events are inserted straight into the
// ledger's SQLite file with better-sqlite3 in transactions of 50,000 rows (the FTS trigger
// still indexes each one) — the journal would spend minutes on them, and only their presence
// matters here.
import { join } from "node:path";
import {
  betterSqlite3,
  DIST,
  fixtureProject,
  fmtInt,
  fmtMs,
  fmtRatio,
  load,
  percentile,
  revisionBump,
  sampleLatency,
} from "./lib.mjs";
import { READS } from "./reads.mjs";

export const title = "Scale: 10,000 items, 1,000,000 events";
export const fullOnly = true;

const EVENT_TYPES = ["note.bench", "build.passed", "build.failed", "deploy.done", "review.comment"];
const WORDS = "ledger invoice payment token session search index cache report export".split(" ");

function insertEvents(root, count, works) {
  const Database = betterSqlite3();
  const db = new Database(join(root, ".awr", "state.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL"); // bulk load only; the ledger reopens it with FULL
  const state = db.prepare("SELECT project_id, revision FROM project_state").get();
  const maxSeq = db.prepare("SELECT coalesce(max(seq), 0) AS s FROM events").get().s;
  const insert = db.prepare(
    "INSERT INTO events (id, seq, revision, type, work, session, client, operation_id, summary, payload, time) VALUES (?, ?, ?, ?, ?, NULL, 'bench', NULL, ?, '{}', ?)",
  );
  const batch = 50_000;
  const time = new Date().toISOString();
  const started = performance.now();
  for (let from = 0; from < count; from += batch) {
    db.transaction(() => {
      for (let i = from; i < Math.min(count, from + batch); i++) {
        const revision = state.revision + 1 + i;
        insert.run(
          `bench-${String(i).padStart(8, "0")}`,
          maxSeq + 1 + i,
          revision,
          EVENT_TYPES[i % EVENT_TYPES.length],
          i % 2 === 0 ? works[i % works.length] : null,
          `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} event ${i}`,
          time,
        );
      }
    })();
  }
  db.prepare("UPDATE project_state SET revision = ?").run(state.revision + count);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return (performance.now() - started) / 1000;
}

export async function run({ quick }) {
  const items = 10_000;
  const events = 1_000_000;
  const n = quick ? 60 : 300;
  const nFresh = quick ? 20 : 60;
  const t0 = performance.now();
  const big = await fixtureProject(items, { seed: 3 });
  const initSeconds = (performance.now() - t0) / 1000;
  const bigWorks = big.items.filter((i) => i.active).map((i) => i.work);
  const insertSeconds = insertEvents(
    big.root,
    events,
    big.items.map((i) => i.work),
  );
  const small = await fixtureProject(150);
  const smallWorks = small.items.filter((i) => i.active).map((i) => i.work);

  const { openLedger } = await load(DIST.ledger);
  const caller = { client: "stdio" };
  const smallLedger = await openLedger({ root: small.root });
  const bigLedger = await openLedger({ root: big.root });
  const rows = [];
  const profiles = [];
  try {
    const bumps = new Map([
      [smallLedger, revisionBump(smallLedger)],
      [bigLedger, revisionBump(bigLedger)],
    ]);
    for (const read of READS) {
      for (const fresh of [false, true]) {
        // Alternate blocks: small, big, small, big, so drift hits both. `fresh`: every timed
        // read is the first at a new revision (the ledger's per-revision memo is dropped).
        const s = [];
        const b = [];
        const perBlock = fresh ? nFresh / 2 : n / 2;
        for (let block = 0; block < 4; block++) {
          const [ledger, works, into] =
            block % 2 === 0 ? [smallLedger, smallWorks, s] : [bigLedger, bigWorks, b];
          const samples = await sampleLatency(
            (i) => ledger.execute(read.tool, read.args(works[i % works.length], i), caller),
            { n: perBlock, warmup: fresh ? 2 : 20, before: fresh ? bumps.get(ledger) : undefined },
          );
          into.push(...samples);
        }
        const ratio = percentile(b, 95) / percentile(s, 95);
        const met = ratio <= 2;
        const mode = fresh ? "first read after a write" : "same revision";
        rows.push({
          figure: `${read.name} p95 at 10k items / 1M events (${mode})`,
          value: fmtMs(percentile(b, 95)),
          baseline: `150-item fixture ${fmtMs(percentile(s, 95))}`,
          ratio: fmtRatio(ratio),
          goal: "≤ 2x",
          met,
          command: "pnpm bench --only scale",
        });
        if (!met) {
          // About five seconds of work per profile, whatever the read costs.
          const calls = Math.max(10, Math.min(300, Math.round(5000 / percentile(b, 95))));
          profiles.push({
            title: `${read.name} at 10k items / 1M events, ${mode} (${fmtRatio(ratio)} of the small fixture)`,
            args: [
              "scripts/bench/workload.mjs",
              "reads",
              big.root,
              read.tool,
              String(calls),
              bigWorks[0],
              ...(fresh ? ["bump"] : []),
            ],
            sql: true,
            calls,
          });
        }
      }
    }
  } finally {
    await smallLedger.close();
    await bigLedger.close();
  }
  return {
    rows,
    notes: [
      `Setup: the fixture generator wrote and \`initProject\` indexed ${fmtInt(items)} items in ${initSeconds.toFixed(1)} s; ` +
        `${fmtInt(events)} events were inserted directly through SQL (better-sqlite3, transactions of 50,000 rows, FTS trigger active, ` +
        `project revision advanced to match) in ${insertSeconds.toFixed(1)} s. Half of the events name a work item. ` +
        `${n} timed calls per read on each project at one revision (mostly hits of the ledger's per-revision memo), and ${nFresh} ` +
        "each preceded by an untimed journaled write (the first read at a new revision), in alternating blocks.",
    ],
    profiles,
  };
}
