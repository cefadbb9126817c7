import { initProject, openLedger } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { createTransport, MCPClient } from "@awr/mcp-client";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { type ClaimsSoakReport, runClaimsSoak } from "../../../scripts/claims-soak.mjs";
import { testProgram } from "../../../scripts/test/test-programs.mjs";
import { tempDir } from "./support/projects.js";

// 16 claimers race for one work item through separate awr-mcp processes on one ledger (SQLite:
// a stdio process each; PostgreSQL: two HTTP services), then a holder is killed with SIGKILL.
// `pnpm bench --only claims` runs the same soak with 1,000 trials per backend.

const PG_URL = process.env["AWR_TEST_DATABASE_URL"];
if (!PG_URL && process.env["CI"] === "true") {
  throw new Error("AWR_TEST_DATABASE_URL is not set under CI=true: the PostgreSQL soak must run");
}

const MODULES = { initProject, openLedger, ledgerStore, MCPClient, createTransport, pg };
const BACKENDS = PG_URL ? (["sqlite", "postgres"] as const) : (["sqlite"] as const);

let cleanup: () => Promise<void> = async () => undefined;
afterEach(() => cleanup());

function expectNoDoubleClaim(report: ClaimsSoakReport, trials: number): void {
  expect(report.unexpected).toEqual([]);
  expect(report.trials).toBe(trials);
  expect(report.double_claims).toBe(0);
  expect(report.trials_with_more_than_one_winner).toBe(0);
  expect(report.history_overlaps).toBe(0);
  expect(report.trials_without_winner).toBe(0);
  // Every trial granted one claim and the kill trial two (the holder's, the takeover's).
  expect(report.claims_granted).toBe(trials + 2 * report.kill_trials.length);
  // The losers really raced: each heard ClaimConflict in every trial.
  expect(report.claim_conflicts).toBeGreaterThanOrEqual(trials * (report.claimers - 1));
  for (const kill of report.kill_trials) {
    expect(kill.attempts_before_expiry).toBeGreaterThan(0);
    expect(kill.conflicts_before_expiry).toBe(kill.attempts_before_expiry);
    expect(kill.takeovers_before_expiry).toBe(0);
    expect(kill.takeovers).toBe(1);
    expect(kill.taken_over_after_ms).toBeGreaterThanOrEqual(kill.ttl_ms);
  }
}

describe.each(BACKENDS)("claims never double on %s", (backend) => {
  it("16 claimers race through separate awr-mcp processes; a killed holder keeps its claim until its ttl", async () => {
    const temp = await tempDir(`awr-claims-soak-${backend}-`);
    cleanup = temp.cleanup;
    const trials = 5;
    const report = await runClaimsSoak({
      backend,
      dir: temp.dir,
      pgUrl: PG_URL,
      modules: MODULES,
      awrMcp: testProgram("awr-mcp"),
      trials,
      claimers: 16,
      killTrials: backend === "sqlite" ? 2 : 1,
      // Long enough that the first round after the kill is answered before the expiry on a busy
      // machine (the test asserts that round was refused).
      ttlMs: 1500,
    });
    expectNoDoubleClaim(report, trials);
  }, 60_000);
});
