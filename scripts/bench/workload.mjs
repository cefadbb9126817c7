// Workloads run in a child process of their own, so they can be profiled with --cpu-prof:
//   node scripts/bench/workload.mjs reads <root> <tool> <n> [work] [bump]
//   node scripts/bench/workload.mjs writes <root> <n>
//   node scripts/bench/workload.mjs mcp-reads <root> <tool> <n> [work] [bump]   (awr-mcp --project)
//   node scripts/bench/workload.mjs http-writes <registry> <key,key,…> <target>  (awr-mcp --registry)
import {
  BENCH_TOKEN,
  DIST,
  load,
  observeStatements,
  revisionBump,
  startHttpService,
} from "./lib.mjs";
import { READS } from "./reads.mjs";
import { httpWriteLoad } from "./writes.mjs";

const [mode, root, a, b, c, d] = process.argv.slice(2);
/** With "bump", an untimed journaled write precedes every read (the first read at a revision). */
const bumping = d === "bump";

// AWR_BENCH_SQL_PROFILE=1: time every SQLite statement by its SQL text (better-sqlite3 runs
// synchronously, so this is the time spent inside SQLite for it) and print the totals as one
// `SQLPROFILE <json>` line at exit.
if (process.env.AWR_BENCH_SQL_PROFILE === "1") {
  const totals = new Map();
  observeStatements((text, ms) => {
    const key = String(text).replace(/\s+/g, " ").trim().slice(0, 200);
    const entry = totals.get(key) ?? { ms: 0, calls: 0 };
    entry.ms += ms;
    entry.calls++;
    totals.set(key, entry);
  });
  process.on("exit", () => {
    const top = [...totals.entries()].sort((x, y) => y[1].ms - x[1].ms).slice(0, 8);
    process.stdout.write(`SQLPROFILE ${JSON.stringify(top)}\n`);
  });
}
if (mode === "http-writes") {
  const service = await startHttpService(/** @type {string} the registry */ (root), {
    AWR_BENCH_TOKEN: BENCH_TOKEN,
  });
  try {
    await httpWriteLoad(service.url, /** @type {string} */ (a).split(","), Number(b));
  } finally {
    await service.stop(); // SIGTERM: a graceful exit, so its profile is written
  }
  process.exit(0);
}
if (mode === "mcp-reads") {
  const { MCPClient, createTransport } = await load(DIST.client);
  const read = /** @type {import("./reads.mjs").Read} */ (READS.find((r) => r.tool === a));
  const client = new MCPClient(
    createTransport(
      // The server inherits the profiler preload: pass the environment on explicitly.
      {
        command: process.execPath,
        args: [DIST.service, "--project", root],
        env: { ...process.env },
      },
      { closeGraceMs: 5_000 },
    ),
    { name: "bench", version: "1.0.0" },
  );
  await client.connect();
  const { openLedger } = await load(DIST.ledger);
  const bumper = bumping ? await openLedger({ root }) : undefined;
  const bump = bumper ? revisionBump(bumper) : async () => undefined;
  for (let i = 0; i < Number(b); i++) {
    await bump();
    await client.callTool(read.tool, read.args(c, i), { timeout: 30_000 });
  }
  await client.close();
  await bumper?.close();
  process.exit(0);
}
const { openLedger } = await load(DIST.ledger);
const ledger = await openLedger({ root });
const caller = { client: "stdio" };
try {
  if (mode === "reads") {
    const read = /** @type {import("./reads.mjs").Read} */ (READS.find((r) => r.tool === a));
    const n = Number(b);
    const bump = revisionBump(ledger);
    for (let i = 0; i < n; i++) {
      if (bumping) await bump();
      await ledger.execute(read.tool, read.args(c, i), caller);
    }
  } else if (mode === "writes") {
    const n = Number(a);
    for (let i = 0; i < n; i++) {
      await ledger.call(
        "awr_event_append",
        {
          event_type: "bench.note",
          summary: `w${i}`,
          // Journaled, as figure 5's row it profiles (three commits, three revisions).
          request_id: `profile-${process.pid}-${i}`,
          expected_revision: await ledger.revision(),
        },
        caller,
      );
    }
  } else {
    throw new Error(`unknown workload ${mode}`);
  }
} finally {
  await ledger.close();
}
