// The claims soak at full size (scripts/claims-soak.mjs): 16 claimers race for one work item,
// 1,000 trials on SQLite (a stdio awr-mcp process per claimer) and 1,000 on PostgreSQL (two HTTP
// awr-mcp services on one schema), then holders killed with SIGKILL. The figure is the number of
// double claims, which must be 0; the rest says how hard the claimers raced.
import { createRequire } from "node:module";
import { join } from "node:path";
import { runClaimsSoak } from "../claims-soak.mjs";
import { benchPostgres, DIST, fmtInt, load, ROOT, tempDir } from "./lib.mjs";

export const title = "Claims never double (16 claimers, one work item)";

async function modules() {
  const { initProject, openLedger } = await load(DIST.ledger);
  const { ledgerStore } = await load(DIST.ledgerTesting);
  const { MCPClient, createTransport } = await load(DIST.client);
  const pg = createRequire(join(ROOT, "apps/service/package.json"))("pg");
  return { initProject, openLedger, ledgerStore, MCPClient, createTransport, pg };
}

/**
 * @param {import("./lib.mjs").BenchOptions} options
 * @returns {Promise<import("./lib.mjs").BenchResult>}
 */
export async function run({ quick }) {
  const trials = quick ? 50 : 1000;
  const killTrials = quick ? 2 : 10;
  const mods = await modules();
  const cmd = "pnpm bench --only claims";
  const reports = [];
  const notes = [];
  /** @type {{ backend: "sqlite" | "postgres", label: string, pgUrl?: string | undefined }[]} */
  const backends = [{ backend: "sqlite", label: "SQLite, 16 stdio processes" }];
  const postgres = benchPostgres();
  if (postgres === undefined) {
    notes.push(
      "PostgreSQL: not measured (set AWR_BENCH_DATABASE_URL, or run as root with PostgreSQL 15 installed).",
    );
  } else {
    backends.push({
      backend: "postgres",
      label: "PostgreSQL, 2 HTTP services",
      pgUrl: postgres.url,
    });
  }
  try {
    for (const { backend, label, pgUrl } of backends) {
      const report = await runClaimsSoak({
        backend,
        pgUrl,
        dir: tempDir(`claims-${backend}`),
        modules: mods,
        awrMcp: DIST.service,
        trials,
        claimers: 16,
        killTrials,
        ttlMs: 1500,
        onProgress: (line) => process.stderr.write(`bench: claims ${line}\n`),
      });
      reports.push({ label, report });
      // The whole report, since the printed table cuts its cells short.
      process.stderr.write(`bench: claims ${backend}: ${JSON.stringify(report)}\n`);
    }
  } finally {
    postgres?.stop();
  }

  const rows = [];
  for (const { label, report: r } of reports) {
    const kills = r.kill_trials;
    const early = kills.reduce((n, k) => n + k.takeovers_before_expiry, 0);
    const soon = Math.min(...kills.map((k) => k.taken_over_after_ms));
    const late = Math.max(...kills.map((k) => k.taken_over_after_ms));
    rows.push({
      figure: `double claims (${label})`,
      value: String(r.double_claims),
      baseline: `${fmtInt(r.trials)} trials, ${fmtInt(r.claims_granted)} claims granted, ${fmtInt(r.claim_conflicts)} ClaimConflict, ${fmtInt(r.revision_retries)} revision retries; ${r.seconds.toFixed(0)} s`,
      ratio: "—",
      goal: "0, every trial won once",
      met: r.double_claims === 0 && r.trials_without_winner === 0 && r.unexpected.length === 0,
      command: cmd,
    });
    rows.push({
      figure: `SIGKILLed holder taken over early (${label})`,
      value: String(early),
      baseline: `${kills.length} kills (mid-renew, idle), ttl_ms ${kills[0]?.ttl_ms ?? "—"}: ${fmtInt(kills.reduce((n, k) => n + k.conflicts_before_expiry, 0))} ClaimConflict before expiry; takeovers after ${Number.isFinite(soon) ? `${fmtInt(soon)}` : "—"}–${Number.isFinite(late) ? `${fmtInt(late)}` : "—"} ms`,
      ratio: "—",
      goal: "0; one takeover after the ttl",
      met: early === 0 && kills.every((k) => k.takeovers === 1),
      command: cmd,
    });
    for (const message of r.unexpected) notes.push(`${label}: unexpected: ${message}`);
  }
  notes.push(
    "Each trial: all 16 claimers send their claim at once (every other trial awr_session_claim, the rest awr_session_start with claim: true), retry on RevisionConflict, and stop at success or ClaimConflict; the winner releases (or ends its session). Afterwards every claim in the ledger's claims table is checked against the one before it (ended no later than the next was granted; a lapsed one not taken over before its expires_at).",
    "Kill trials: a holder claims with the ttl, and its process (SQLite: its stdio awr-mcp; PostgreSQL: the service that granted the claim) is killed with SIGKILL, idle or a few ms into renewing; the others keep trying until one takes the claim over.",
  );
  return { rows, notes };
}
