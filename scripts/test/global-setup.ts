/**
 * Vitest global setup, once per test run:
 * - bundles the `awr` and `awr-mcp` programs from their sources for the tests that start them as
 *   processes (build-programs.ts), naming the directory in AWR_TEST_PROGRAMS_DIR;
 * - gives the ledger's PostgreSQL suite a real server. When AWR_TEST_DATABASE_URL is unset and
 *   PostgreSQL 15 is installed, it starts a throwaway server on loopback for this run and stops
 *   it afterwards; otherwise the PostgreSQL tests are skipped locally (and fail under CI=true,
 *   where .ci/run provides the URL).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPrograms } from "./build-programs.js";
import { PROGRAMS_DIR_VARIABLE } from "./test-programs.mjs";

const PG_BIN = "/usr/lib/postgresql/15/bin";

export default async function setup(): Promise<() => void> {
  const programs = mkdtempSync(join(tmpdir(), "awr-test-programs-"));
  // Readable by everyone: a test runs `awr` as an unprivileged user (apps/cli's readonly-ledger).
  chmodSync(programs, 0o755);
  try {
    await buildPrograms(programs);
  } catch (error) {
    rmSync(programs, { recursive: true, force: true });
    throw error;
  }
  process.env[PROGRAMS_DIR_VARIABLE] = programs;
  const stopPostgres = startPostgres();
  return () => {
    try {
      stopPostgres?.();
    } finally {
      rmSync(programs, { recursive: true, force: true });
    }
  };
}

/** A throwaway PostgreSQL for this run when none is given and one can start; its stop. */
function startPostgres(): (() => void) | undefined {
  if (process.env.AWR_TEST_DATABASE_URL || process.env.AWR_TEST_NO_PG) return undefined;
  if (!existsSync(`${PG_BIN}/pg_ctl`) || process.getuid?.() !== 0) return undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "awr-test-pg-"));
  const port = String(56000 + (process.pid % 1000));
  const script = fileURLToPath(new URL("../pg-start.sh", import.meta.url));
  try {
    const url = execFileSync(script, [port, dataDir, String(process.pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
    process.env.AWR_TEST_DATABASE_URL = url;
  } catch {
    rmSync(dataDir, { recursive: true, force: true });
    return undefined;
  }
  return () => {
    try {
      execFileSync(
        "runuser",
        ["-u", "postgres", "--", `${PG_BIN}/pg_ctl`, "-D", dataDir, "stop", "-m", "fast"],
        { stdio: "ignore" },
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
}
