// Shared helpers of the benchmark modules: paths to the built packages, fixture projects,
// statistics, child processes, RSS. Everything here runs against dist/ (see ensureBuilt).
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * What scripts/bench.mjs hands each benchmark module's `run`.
 * @typedef {object} BenchOptions
 * @property {boolean} quick the small smoke run (`pnpm bench --quick`)
 */

/**
 * One row of the benchmark table.
 * @typedef {object} BenchRow
 * @property {string} figure
 * @property {string} value what was measured
 * @property {string} baseline
 * @property {string} ratio
 * @property {string} goal
 * @property {boolean | null | undefined} met null (or undefined): a figure that is reported, with no goal
 * @property {string} command the command that reruns it
 */

/**
 * A CPU profile a benchmark asks for (taken by scripts/bench/profile.mjs after it ran).
 * @typedef {object} BenchProfile
 * @property {string} title
 * @property {string[]} args node's arguments: the script to profile and its own
 * @property {string} [cwd]
 * @property {boolean} [tree] profile the process tree (every node process it starts)
 * @property {boolean} [sql] also time its SQL statements
 * @property {number} [calls] the calls the SQL profile covers, for its per-call figures
 */

/**
 * What a benchmark module's `run` resolves with.
 * @typedef {object} BenchResult
 * @property {BenchRow[]} rows
 * @property {string[]} [notes]
 * @property {BenchProfile[]} [profiles]
 * @property {string[]} [whereTimeGoes] markdown lines saying where the time of a missed goal goes
 * @property {string} [skipped] why it measured nothing (a corpus or server it needs is missing)
 */

/** The built entry points the benchmarks use; `pnpm build` produces all of them. */
export const DIST = {
  ledger: join(ROOT, "packages/awr-ledger/dist/index.js"),
  ledgerTesting: join(ROOT, "packages/awr-ledger/dist/testing/index.js"),
  fixtures: join(ROOT, "packages/ledger-fixtures/dist/index.js"),
  server: join(ROOT, "packages/awr-server/dist/index.js"),
  client: join(ROOT, "packages/mcp-client/dist/index.js"),
  service: join(ROOT, "apps/service/dist/main.js"),
  cli: join(ROOT, "apps/cli/dist/main.js"),
};

/** Runs `pnpm build` when any built entry is missing (a fresh clone after install). */
export function ensureBuilt({ force = false } = {}) {
  const missing = Object.values(DIST).filter((path) => !existsSync(path));
  if (!force && missing.length === 0) return;
  console.error(
    `bench: building first (${force ? "--build" : `missing ${missing.map((p) => p.slice(ROOT.length + 1)).join(", ")}`})`,
  );
  const result = spawnSync("pnpm", ["build"], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0)
    throw new Error("pnpm build failed: the benchmarks need the built packages");
}

/**
 * Imports a built module by path. What it gives is untyped (`any`): dist/ is imported by path
 * at run time, with no declarations the checker follows.
 * @param {string} path
 * @returns {Promise<any>}
 */
export const load = (path) => import(pathToFileURL(path).href);

/** better-sqlite3 as the ledger resolves it (the same native build the ledger uses). */
export function betterSqlite3() {
  return createRequire(join(ROOT, "packages/awr-ledger/package.json"))("better-sqlite3");
}

/** kysely's `sql` tag as the ledger resolves it. */
export function kyselySql() {
  return createRequire(join(ROOT, "packages/awr-ledger/package.json"))("kysely").sql;
}

/** @type {string[]} */
const temps = [];
/**
 * A fresh directory under the system's temporary one, removed by removeTemps.
 * @param {string} prefix
 */
export function tempDir(prefix) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `awr-bench-${prefix}-`)));
  temps.push(dir);
  return dir;
}
export function removeTemps() {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A work item of a fixture project, as the fixture generator describes it.
 * @typedef {import("@awr/ledger-fixtures").FixtureItemFacts} FixtureItem
 */

/**
 * A synthetic project (the ledger's fixture generator), initialised; returns its facts too. With
 * `postgres` (from benchPostgres) the ledger lives in a fresh schema of that server.
 */
/**
 * @param {number} items
 * @param {{ seed?: number, dir?: string, postgres?: unknown }} [options]
 * @returns {Promise<import("@awr/ledger-fixtures").FixtureProject & { project_id: string | null }>}
 */
export async function fixtureProject(items, { seed = 1, dir, postgres } = {}) {
  const { generateFixtureProject } = await load(DIST.fixtures);
  const { initProject } = await load(DIST.ledger);
  const fixture = generateFixtureProject(join(dir ?? tempDir(`p${items}`), "project"), {
    items,
    seed,
  });
  if (postgres !== undefined) {
    const schema = `awr_bench_${items}_${process.pid}_${Date.now().toString(36)}`;
    appendFileSync(
      fixture.manifest_path,
      `\n[storage]\nbackend = "postgres"\nurl_env = "${PG_URL_ENV}"\nschema = "${schema}"\n`,
    );
  }
  const init = await initProject({
    root: fixture.root,
    manifest: fixture.manifest_path,
    accept: true,
  });
  return { ...fixture, project_id: init.project_id };
}

/** The environment variable the benchmark's PostgreSQL projects name for their database URL. */
export const PG_URL_ENV = "AWR_BENCH_DATABASE_URL";

/**
 * A PostgreSQL server for the PostgreSQL rows: AWR_BENCH_DATABASE_URL when set, else a throwaway
 * PostgreSQL 15 on loopback (scripts/pg-start.sh, run as root, stopped by `stop`). Undefined
 * when neither is possible; the rows that need it then say so.
 */
export function benchPostgres() {
  if (process.env[PG_URL_ENV]) return { url: process.env[PG_URL_ENV], stop() {} };
  const pgCtl = "/usr/lib/postgresql/15/bin/pg_ctl";
  if (!existsSync(pgCtl) || process.getuid?.() !== 0) return undefined;
  const data = tempDir("pg");
  const port = String(57000 + (process.pid % 1000));
  const result = spawnSync(join(ROOT, "scripts/pg-start.sh"), [port, data, String(process.pid)], {
    encoding: "utf8",
  });
  if (result.status !== 0) return undefined;
  process.env[PG_URL_ENV] = result.stdout.trim();
  return {
    url: process.env[PG_URL_ENV],
    stop() {
      spawnSync("runuser", ["-u", "postgres", "--", pgCtl, "-D", data, "stop", "-m", "fast"]);
      delete process.env[PG_URL_ENV];
    },
  };
}

/**
 * The `p`th percentile (nearest rank) of `values`; NaN for none.
 * @param {readonly number[]} values
 * @param {number} p
 */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return /** @type {number} */ (sorted[index]);
}
/** @param {readonly number[]} values */
export const median = (values) => percentile(values, 50);

/**
 * Times `n` sequential calls of fn (after `warmup` untimed ones); per-call milliseconds.
 * `before(i)`, when given, runs untimed before each call (e.g. a write that moves the revision).
 */
/**
 * @param {(i: number) => unknown} fn
 * @param {{ n: number, warmup?: number, before?: ((i: number) => unknown) | undefined }} options
 * @returns {Promise<number[]>}
 */
export async function sampleLatency(fn, { n, warmup = Math.min(50, n), before }) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples = [];
  for (let i = 0; i < n; i++) {
    if (before) await before(i);
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * An untimed write that changes one work item in place, as a work transition's domain commit
 * does (its status, in the entities table, with a revision spent), written directly: at 10,000
 * items a real transition spends seconds rewriting the YAML source, which is not what is timed.
 * Rotates through `works`, flipping each between planned and ready (planned rather than blocked:
 * a blocked item without a blocker is, rightly, an incomplete context).
 * @param {any} ledger an open ledger (from dist/)
 * @param {readonly string[]} works
 */
export function workItemUpdate(ledger, works) {
  let i = 0;
  return async () => {
    const { ledgerStore, spendRevision } = await load(DIST.ledgerTesting);
    const work = works[i++ % works.length];
    await ledgerStore(ledger).write(async (/** @type {any} */ tx) => {
      await spendRevision(tx);
      const row = await tx
        .selectFrom("entities")
        .select("status")
        .where("key", "=", work)
        .executeTakeFirst();
      const next = row?.status === "planned" ? "ready" : "planned";
      await tx.updateTable("entities").set({ status: next }).where("key", "=", work).execute();
    });
  };
}

/**
 * An untimed journaled write that moves the project revision (so revision-keyed caches drop).
 * @param {any} ledger an open ledger (from dist/)
 */
export function revisionBump(ledger) {
  return async () => {
    await ledger.call(
      "awr_event_append",
      {
        event_type: "bench.bump",
        summary: "bump",
        expected_revision: await ledger.revision(),
      },
      { client: "stdio" },
    );
  };
}

/** @param {number} ms */
export const fmtMs = (ms) =>
  ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
/** @param {number} r */
export const fmtRatio = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : "—");
/** @param {number} r */
export const fmtPct = (r) => `${(r * 100).toFixed(1)}%`;
/** @param {number} n */
export const fmtInt = (n) => Math.round(n).toLocaleString("en-US");
/** @param {number} bytes */
export const fmtMiB = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Resident set size of a live process in bytes (Linux /proc).
 * @param {number | undefined} pid
 */
export function rssBytes(pid) {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) * 1024;
}

/**
 * What `run` resolves with.
 * @typedef {object} RunResult
 * @property {number | null} code
 * @property {NodeJS.Signals | null} signal
 * @property {string} stdout
 * @property {string} stderr
 */

/**
 * Runs a command to completion; resolves with its exit code, stdout and stderr.
 * `options.onStdout` hears each chunk of its output as it comes.
 * @param {string} command
 * @param {readonly string[]} args
 * @param {Omit<import("node:child_process").SpawnOptions, "stdio"> & { onStdout?: (text: string) => void }} [options]
 * @returns {Promise<RunResult>}
 */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      options.onStdout?.(chunk.toString());
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** @type {Set<import("node:child_process").ChildProcess>} */
const services = new Set();
/** Kills every service a benchmark left running (also on failure). */
export function stopServices() {
  for (const child of services) child.kill("SIGKILL");
  services.clear();
}

/**
 * awr-mcp (built) as the shared HTTP service on an ephemeral loopback port.
 * @param {string} registry the service registry's file
 * @param {NodeJS.ProcessEnv} env added to this process's environment
 * @param {readonly string[]} [extraArgs] node's own options, before the program
 */
export async function startHttpService(registry, env, extraArgs = []) {
  const child = spawn(
    process.execPath,
    [...extraArgs, DIST.service, "--registry", registry, "--listen", "127.0.0.1:0"],
    {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  services.add(child);
  let stderr = "";
  /** @type {string} */
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`awr-mcp did not start:\n${stderr}`)), 60_000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(/** @type {string} */ (match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`awr-mcp exited (${code}):\n${stderr}`));
    });
  });
  return {
    url,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      services.delete(child);
    },
  };
}

/**
 * A registry for `projects` and one client writing all of them.
 * @param {readonly { key: string; root: string; project_id: string | null }[]} projects
 * @param {string} [tokenEnv] the variable that holds the client's token
 */
export function registryToml(projects, tokenEnv = "AWR_BENCH_TOKEN") {
  const lines = ["version = 1", ""];
  for (const p of projects)
    lines.push(
      "[[projects]]",
      `key = "${p.key}"`,
      `root = "${p.root}"`,
      `project_id = "${p.project_id}"`,
      "",
    );
  lines.push(
    "[[clients]]",
    'id = "bench"',
    `token_env = "${tokenEnv}"`,
    `write = ${JSON.stringify(projects.map((p) => p.key))}`,
    "",
  );
  return lines.join("\n");
}

/**
 * One JSON-RPC tools/call over the stateless HTTP service; resolves with the tool result.
 * @param {string} url
 * @param {string} token
 * @param {string} name the tool
 * @param {Record<string, unknown>} args
 * @param {number} [id] the request's JSON-RPC id
 * @returns {Promise<any>}
 */
export async function httpTool(url, token, name, args, id = 1) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
  const body =
    text.startsWith("event:") || text.startsWith("data:")
      ? JSON.parse(
          /** @type {string} */ (text.split("\n").find((l) => l.startsWith("data:"))).slice(5),
        )
      : JSON.parse(text);
  if (body.error) {
    throw Object.assign(new Error(`JSON-RPC ${body.error.code}: ${body.error.message}`), {
      code: body.error.code,
    });
  }
  return body.result;
}

export const BENCH_TOKEN = "bench-token-0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * Wraps every better-sqlite3 statement execution (run/get/all/iterate, whoever prepared the
 * statement and whether or not it is cached) with `onStatement(sql, ms, { autocommit })`
 * (autocommit: it changes something outside a transaction, so it is a commit of its own).
 * Returns an undo.
 * better-sqlite3 is synchronous, so `ms` is the time spent inside SQLite for that call.
 */
/**
 * @param {(sql: string, ms: number, info?: { autocommit?: boolean, method?: string, args?: unknown[] }) => void} onStatement
 */
export function observeStatements(onStatement) {
  const Database = betterSqlite3();
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1"));
  probe.close();
  /** @type {Record<string, unknown>} */
  const originals = {};
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = proto[method];
    originals[method] = original;
    /** @this {any} a better-sqlite3 statement @param {unknown[]} args */
    proto[method] = function (...args) {
      const started = performance.now();
      // A statement that changes something outside a transaction commits on its own.
      const autocommit =
        !this.database.inTransaction && !this.reader && !/^\s*(begin|pragma)/i.test(this.source);
      try {
        return original.apply(this, args);
      } finally {
        onStatement(this.source, performance.now() - started, { autocommit, method, args });
      }
    };
  }
  const { exec } = Database.prototype;
  /** @this {any} a better-sqlite3 database @param {string} text @param {unknown[]} rest */
  Database.prototype.exec = function (text, ...rest) {
    const started = performance.now();
    try {
      return exec.call(this, text, ...rest);
    } finally {
      onStatement(text, performance.now() - started);
    }
  };
  return () => {
    Object.assign(proto, originals);
    Database.prototype.exec = exec;
  };
}
