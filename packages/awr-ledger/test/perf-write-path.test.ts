// The fast write path keeps every guarantee: each journal step (started, domain, finished) is
// its own commit at synchronous=FULL, and the project-lock lease is taken in the first and
// released in the last (no commit of its own); a lease's own commits (a direct write's) are the
// only ones without an fsync, and only on a connection the ledger opened itself; statements are
// prepared once per SQL text. SQLite-specific (pragmas, prepared statements); PostgreSQL runs the same journal code in
// the rest of the suite.
import { join } from "node:path";
import { initProject, type Ledger, openLedger } from "@awr/awr-ledger";
import {
  isOwnSqliteDatabase,
  ledgerStore,
  openSqliteDatabase,
  withStatementCache,
} from "@awr/awr-ledger/testing";
import Database from "better-sqlite3";
import { SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { copyFixture } from "./helpers/projects.js";

const caller = { client: "stdio" };
const FULL = 2;

interface Executed {
  sql: string;
  synchronous: number;
}

type StatementMethod = (this: Database.Statement, ...args: unknown[]) => unknown;

/**
 * Records every statement better-sqlite3 runs, with the connection's synchronous level at that
 * moment (read through a guard so the probe's own pragma is not recorded).
 */
function recordStatements(): { executed: Executed[]; stop(): void } {
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, StatementMethod>;
  probe.close();
  const executed: Executed[] = [];
  const originals = new Map<string, StatementMethod>();
  let probing = false;
  for (const name of ["run", "all", "get"]) {
    const original = proto[name] as StatementMethod;
    originals.set(name, original);
    proto[name] = function (this: Database.Statement, ...args: unknown[]) {
      if (!probing) {
        probing = true;
        try {
          const synchronous = Number(this.database.pragma("synchronous", { simple: true }));
          executed.push({ sql: this.source.trim(), synchronous });
        } finally {
          probing = false;
        }
      }
      return original.apply(this, args);
    };
  }
  return {
    executed,
    stop() {
      for (const [name, original] of originals) proto[name] = original;
    },
  };
}

const isCommit = (e: Executed) => /^commit$/i.test(e.sql);
const touchesLease = (e: Executed) =>
  e.sql.includes("project_locks") || /^(begin immediate|commit|pragma synchronous)/i.test(e.sql);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function defaultSqliteProject(): Promise<{ root: string; ledger: Ledger }> {
  const { root, remove } = copyFixture("basic");
  cleanups.push(remove);
  await initProject({ root, manifest: join(root, "project.toml"), accept: true });
  const ledger = await openLedger({ root });
  cleanups.push(() => ledger.close());
  return { root, ledger };
}

/** A journaled write (it has a request_id), so all three of its commits are measured. */
async function append(ledger: Ledger, summary: string) {
  return ledger.call(
    "awr_event_append",
    {
      event_type: "note.added",
      summary,
      request_id: `req-${summary}`,
      expected_revision: await ledgerStore(ledger).currentRevision(),
    },
    caller,
  );
}

describe("a journaled write on the ledger's own SQLite database", () => {
  it("commits its three journal steps at synchronous=FULL, the lease row riding in the first and the last", async () => {
    const { ledger } = await defaultSqliteProject();
    await append(ledger, "warm");
    const recorder = recordStatements();
    try {
      await append(ledger, "measured");
    } finally {
      recorder.stop();
    }
    const { executed } = recorder;
    const commits = executed.flatMap((e, index) => (isCommit(e) ? [index] : []));
    expect(commits).toHaveLength(3);
    expect(executed.filter((e) => e.synchronous < FULL)).toEqual([]);
    const take = executed.findIndex((e) => /^insert into "project_locks"/.test(e.sql));
    // The lease is released by expiring its row in place (taken again by updating it), never
    // by deleting and re-inserting the row and its key.
    const release = executed.findIndex((e) =>
      /^update "project_locks" set "holder" = \?, "expires_at"/.test(e.sql),
    );
    expect(take).toBeGreaterThanOrEqual(0);
    expect(take).toBeLessThan(commits[0] as number);
    expect(release).toBeGreaterThan(commits[1] as number);
    expect(release).toBeLessThan(commits[2] as number);
    expect(executed.some((e) => /^delete from "project_locks"/.test(e.sql))).toBe(false);
    const lease = await ledgerStore(ledger).db.selectFrom("project_locks").selectAll().execute();
    expect(lease).toMatchObject([{ holder: "", expires_at: 0, holder_pid: null }]);
  });

  it("commits a direct write at synchronous=FULL and only its lease rows below it", async () => {
    const { ledger } = await defaultSqliteProject();
    const direct = async (summary: string) =>
      ledger.call(
        "awr_event_append",
        {
          event_type: "note.added",
          summary,
          expected_revision: await ledgerStore(ledger).currentRevision(),
        },
        caller,
      );
    await direct("warm");
    const recorder = recordStatements();
    try {
      await direct("measured");
    } finally {
      recorder.stop();
    }
    const commits = recorder.executed.filter(isCommit);
    expect(commits.filter((e) => e.synchronous >= FULL)).toHaveLength(1);
    expect(commits.filter((e) => e.synchronous < FULL)).toHaveLength(1);
    const relaxed = recorder.executed.filter((e) => e.synchronous < FULL);
    expect(relaxed.length).toBeGreaterThan(0);
    expect(relaxed.filter((e) => !touchesLease(e))).toEqual([]);
    const level = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(
      ledgerStore(ledger).db,
    );
    expect(Number(level.rows[0]?.synchronous)).toBe(FULL);
  });

  it("prepares each SQL text once and reuses it for later writes", async () => {
    const { ledger } = await defaultSqliteProject();
    await append(ledger, "first");
    const { prepare } = Database.prototype;
    let prepared = 0;
    Database.prototype.prepare = function (this: Database.Database, source: string) {
      prepared++;
      return prepare.call(this, source);
    } as typeof prepare;
    try {
      for (let i = 0; i < 3; i++) await append(ledger, `again-${i}`);
    } finally {
      Database.prototype.prepare = prepare;
    }
    expect(prepared).toBe(0);
    expect((await append(ledger, "after")).event.summary).toBe("after");
  });

  it("leaves a caller's own SQLite connection durable for every commit, the lease included", async () => {
    const { root, remove } = copyFixture("basic");
    cleanups.push(remove);
    await initProject({ root, manifest: join(root, "project.toml"), accept: true });
    const raw = new Database(join(root, ".awr", "state.db"));
    raw.pragma("journal_mode = WAL");
    raw.pragma("synchronous = FULL");
    const ledger = await openLedger({ root, database: new SqliteDialect({ database: raw }) });
    cleanups.push(() => ledger.close());
    expect(isOwnSqliteDatabase(ledgerStore(ledger).db)).toBe(false);
    const recorder = recordStatements();
    try {
      await append(ledger, "theirs");
    } finally {
      recorder.stop();
    }
    const commits = recorder.executed.filter(isCommit);
    expect(commits).toHaveLength(3);
    expect(recorder.executed.every((e) => e.synchronous === FULL)).toBe(true);
  });
});

describe("withStatementCache", () => {
  function countingDatabase() {
    const database = new Database(":memory:");
    database.exec("CREATE TABLE t (n INTEGER)");
    const counts = new Map<string, number>();
    return {
      database,
      counts,
      preparing: {
        close: () => database.close(),
        prepare(source: string) {
          counts.set(source, (counts.get(source) ?? 0) + 1);
          return database.prepare(source);
        },
      },
    };
  }

  it("prepares a repeated SQL text once and binds new parameters each time", () => {
    const { counts, preparing } = countingDatabase();
    const cached = withStatementCache(preparing);
    for (let n = 1; n <= 3; n++) cached.prepare("INSERT INTO t (n) VALUES (?)").run([n]);
    expect(cached.prepare("SELECT n FROM t ORDER BY n").all([])).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
    expect(counts.get("INSERT INTO t (n) VALUES (?)")).toBe(1);
    cached.close();
  });

  it("keeps at most the given number of statements, dropping the least recently used", () => {
    const { counts, preparing } = countingDatabase();
    const cached = withStatementCache(preparing, 2);
    const a = "SELECT 1 AS a";
    const b = "SELECT 2 AS b";
    const c = "SELECT 3 AS c";
    for (const source of [a, b, a, c, a, b]) cached.prepare(source).all([]);
    expect(counts.get(a)).toBe(1);
    expect(counts.get(b)).toBe(2);
    expect(counts.get(c)).toBe(1);
    cached.close();
  });

  it("hands a statement that is still iterating to nobody else", () => {
    const { database, preparing } = countingDatabase();
    database.exec("INSERT INTO t (n) VALUES (1), (2)");
    const cached = withStatementCache(preparing);
    const source = "SELECT n FROM t ORDER BY n";
    const outer = cached.prepare(source);
    const seen: unknown[] = [];
    for (const row of outer.iterate([])) {
      seen.push(row, cached.prepare(source).all([]));
    }
    expect(seen).toEqual([{ n: 1 }, [{ n: 1 }, { n: 2 }], { n: 2 }, [{ n: 1 }, { n: 2 }]]);
    cached.close();
  });

  it("marks only databases that openSqliteDatabase opened as the ledger's own", async () => {
    const opened = await openSqliteDatabase(":memory:");
    try {
      expect(isOwnSqliteDatabase(opened.db)).toBe(true);
      expect(isOwnSqliteDatabase({})).toBe(false);
    } finally {
      await opened.close();
    }
  });
});
