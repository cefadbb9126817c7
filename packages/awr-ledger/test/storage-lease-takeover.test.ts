import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isLedgerError, openLedger } from "@awr/awr-ledger";
import {
  appendEvent,
  LedgerStore,
  type LedgerTx,
  ledgerStore,
  migrateToLatest,
} from "@awr/awr-ledger/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "./helpers/backends.js";
import { openFixtureProject } from "./helpers/projects.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const HOLDER = join(packageDir, "test", "fixtures", "lease", "lease-holder.ts");
const PROJECT = "P-LEASE";
/** Far longer than any test: a takeover can only come from proving the holder dead. */
const HOLDER_LEASE_MS = 600_000;
/** Bounds every lock attempt, so a wrong wait fails the test instead of hanging it. */
const ATTEMPT_BOUND_MS = 20_000;

interface Holder {
  /** The process holding the lease (the node child). */
  pid: number;
  /** The process we spawned: the holder itself, or the shell that is its parent. */
  spawned: ChildProcess;
  exited: Promise<void>;
}

const started: ChildProcess[] = [];

/**
 * Starts a process holding the project lock. With `parentNeverReaps` the holder runs under a
 * shell that does not wait for it until told to, so once killed it stays a zombie, as an orphan
 * does under a PID 1 that never reaps.
 */
async function startHolder(location: string, parentNeverReaps = false): Promise<Holder> {
  const payload = JSON.stringify({ location, projectId: PROJECT, leaseMs: HOLDER_LEASE_MS });
  const command = [process.execPath, "--import", "tsx", HOLDER, payload];
  const spawned = parentNeverReaps
    ? spawn("sh", ["-c", '"$@" & read line; wait', "sh", ...command], {
        cwd: packageDir,
        stdio: ["pipe", "pipe", "pipe"],
      })
    : spawn(command[0] as string, command.slice(1), {
        cwd: packageDir,
        stdio: ["ignore", "pipe", "pipe"],
      });
  started.push(spawned);
  const exited = new Promise<void>((resolve) => spawned.once("exit", () => resolve()));
  const pid = await new Promise<number>((resolve, reject) => {
    let out = "";
    let err = "";
    spawned.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /holding (\d+)/.exec(out);
      if (match?.[1] !== undefined) resolve(Number(match[1]));
    });
    spawned.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    spawned.once("exit", (code) => reject(new Error(`holder exited (${code}) early: ${err}`)));
  });
  return { pid, spawned, exited };
}

function procState(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text
      .slice(text.lastIndexOf(")") + 1)
      .trim()
      .split(" ")[0];
  } catch {
    return undefined;
  }
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(condition()).toBe(true);
}

describe("the SQLite lease of a crashed holder on this machine", () => {
  let t: TestDatabase;
  let store: LedgerStore;
  beforeEach(async () => {
    t = await freshDatabase("sqlite");
    await migrateToLatest(t.db, t.dialect);
    store = new LedgerStore(t.db, t.dialect, PROJECT);
  });
  afterEach(async () => {
    for (const child of started.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      // A reaping shell is told to reap first, so a holder it parents never stays a zombie.
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin?.end("\n");
      const timer = setTimeout(() => child.kill("SIGKILL"), child.stdin ? 2_000 : 0);
      await exited;
      clearTimeout(timer);
    }
    await t.close();
  });

  const lease = () =>
    t.db
      .selectFrom("project_locks")
      .selectAll()
      .where("project_id", "=", PROJECT)
      .executeTakeFirstOrThrow();

  it("records who holds it: pid, host and process start", async () => {
    const holder = await startHolder(t.location);
    const row = await lease();
    expect(row.holder_pid).toBe(holder.pid);
    expect(row.holder_host).toEqual(expect.any(String));
    expect(Number(row.expires_at)).toBeGreaterThan(Date.now());
  });

  it("is taken over at once when the holder was killed, long before it expires", async () => {
    const holder = await startHolder(t.location);
    holder.spawned.kill("SIGKILL");
    await holder.exited;
    const left = await lease();
    expect(left.holder_pid).toBe(holder.pid);

    const taken = await store.withProjectLock(
      async () => ({ at: Date.now(), row: await lease() }),
      { signal: AbortSignal.timeout(ATTEMPT_BOUND_MS) },
    );
    expect(taken.at).toBeLessThan(Number(left.expires_at));
    expect(taken.row.holder_pid).toBe(process.pid);
    expect(taken.row.holder).not.toBe(left.holder);
  });

  it("lets a plain write through at once when the holder was killed", async () => {
    const holder = await startHolder(t.location);
    holder.spawned.kill("SIGKILL");
    await holder.exited;
    const left = await lease();
    const at = await store.write(async () => Date.now(), {
      signal: AbortSignal.timeout(ATTEMPT_BOUND_MS),
    });
    expect(at).toBeLessThan(Number(left.expires_at));
    expect(await t.db.selectFrom("project_locks").selectAll().execute()).toEqual([]);
  });

  it("is taken over from a killed holder nobody reaped (a zombie)", async () => {
    const holder = await startHolder(t.location, true);
    process.kill(holder.pid, "SIGKILL");
    await until(() => procState(holder.pid) === "Z");
    const left = await lease();

    const taken = await store.withProjectLock(
      async () => ({ at: Date.now(), row: await lease() }),
      { signal: AbortSignal.timeout(ATTEMPT_BOUND_MS) },
    );
    expect(taken.at).toBeLessThan(Number(left.expires_at));
    expect(taken.row.holder_pid).toBe(process.pid);
    holder.spawned.stdin?.end("reap\n");
    await holder.exited;
  });

  it("is respected while its holder is alive", async () => {
    const holder = await startHolder(t.location);
    const controller = new AbortController();
    const reason = new Error("gave up waiting");
    setTimeout(() => controller.abort(reason), 300);
    let entered = false;
    await expect(
      store.withProjectLock(
        async () => {
          entered = true;
        },
        { signal: controller.signal },
      ),
    ).rejects.toBe(reason);
    expect(entered).toBe(false);
    expect((await lease()).holder_pid).toBe(holder.pid);
  });

  it("is respected until it expires when held on another host, or by an unknown holder", async () => {
    for (const identity of [
      { holder_pid: 999_999_999, holder_host: "another-host", holder_start: "1" },
      { holder_pid: null, holder_host: null, holder_start: null },
    ]) {
      await t.db.deleteFrom("project_locks").execute();
      await t.db
        .insertInto("project_locks")
        .values({
          project_id: PROJECT,
          holder: "elsewhere",
          expires_at: Date.now() + HOLDER_LEASE_MS,
          ...identity,
        })
        .execute();
      const controller = new AbortController();
      const reason = new Error("gave up waiting");
      setTimeout(() => controller.abort(reason), 200);
      await expect(
        store.withProjectLock(async () => "entered", { signal: controller.signal }),
      ).rejects.toBe(reason);
      expect((await lease()).holder).toBe("elsewhere");
    }
  });
});

describe("a SQLite lease folded into the holder's writes (leaseInWrites)", () => {
  let t: TestDatabase;
  let store: LedgerStore;
  beforeEach(async () => {
    t = await freshDatabase("sqlite");
    await migrateToLatest(t.db, t.dialect);
    store = new LedgerStore(t.db, t.dialect, PROJECT);
  });
  afterEach(async () => {
    for (const child of started.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    await t.close();
  });

  const leaseRow = () =>
    t.db
      .selectFrom("project_locks")
      .selectAll()
      .where("project_id", "=", PROJECT)
      .executeTakeFirst();
  const folded = () => ({ leaseInWrites: true, signal: AbortSignal.timeout(ATTEMPT_BOUND_MS) });
  const note = (tx: LedgerTx, type: string) => appendEvent(tx, { type, revision: 1 });

  it("is taken by the first write, released by the one that says so, with no commit of its own", async () => {
    const seen = await store.withProjectLock(async (held) => {
      const before = await leaseRow();
      await held.write((tx) => note(tx, "a"));
      const during = await leaseRow();
      await held.write((tx) => note(tx, "b"), { releasesLock: true });
      return { before, during, after: await leaseRow() };
    }, folded());
    expect(seen.before).toBeUndefined();
    expect(seen.during?.holder_pid).toBe(process.pid);
    expect(Number(seen.during?.expires_at)).toBeGreaterThan(Date.now());
    expect(seen.after).toMatchObject({ holder: "", expires_at: 0, holder_pid: null });
    expect(await leaseRow()).toEqual(seen.after);
  });

  it("is not taken by a first write that rolled back, and is released when the hold ends early", async () => {
    const failure = new Error("refused check");
    await expect(
      store.withProjectLock(async (held) => {
        await held.write(async () => {
          throw failure;
        });
      }, folded()),
    ).rejects.toBe(failure);
    expect(await leaseRow()).toBeUndefined();
    await expect(
      store.withProjectLock(async (held) => {
        await held.write((tx) => note(tx, "a"));
        expect((await leaseRow())?.holder_pid).toBe(process.pid);
        throw failure;
      }, folded()),
    ).rejects.toBe(failure);
    expect(await leaseRow()).toMatchObject({ holder: "", expires_at: 0 });
  });

  it("runs the holder's later writes to their end once the first took the lease, whatever the signal", async () => {
    const controller = new AbortController();
    await store.withProjectLock(
      async (held) => {
        await held.write((tx) => note(tx, "a"));
        controller.abort(new Error("the caller gave up"));
        await held.write((tx) => note(tx, "b"), { releasesLock: true });
      },
      { leaseInWrites: true, signal: controller.signal },
    );
    const types = (await t.db.selectFrom("events").select("type").orderBy("seq").execute()).map(
      (row) => row.type,
    );
    expect(types).toEqual(["a", "b"]);
    expect(await leaseRow()).toMatchObject({ holder: "", expires_at: 0 });
  });

  it("makes the first write wait while another process holds the lease", async () => {
    const holder = await startHolder(t.location);
    const controller = new AbortController();
    const reason = new Error("gave up waiting");
    setTimeout(() => controller.abort(reason), 300);
    await expect(
      store.withProjectLock((held) => held.write((tx) => note(tx, "a")), {
        leaseInWrites: true,
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
    expect(await t.db.selectFrom("events").selectAll().execute()).toEqual([]);
    expect((await leaseRow())?.holder_pid).toBe(holder.pid);
  });

  it("is taken over at once from a killed holder", async () => {
    const holder = await startHolder(t.location);
    holder.spawned.kill("SIGKILL");
    await holder.exited;
    const left = await leaseRow();
    const taken = await store.withProjectLock(async (held) => {
      await held.write((tx) => note(tx, "a"));
      return { at: Date.now(), row: await leaseRow() };
    }, folded());
    expect(taken.at).toBeLessThan(Number(left?.expires_at));
    expect(taken.row?.holder_pid).toBe(process.pid);
  });
});

describe("openLedger's lockLeaseMs", () => {
  it("sets the lease length of the ledger's project lock", async () => {
    const p = await openFixtureProject("basic", "sqlite");
    try {
      const ledger = await openLedger({
        root: p.root,
        database: p.db.db,
        lockLeaseMs: HOLDER_LEASE_MS,
      });
      try {
        const expiresIn = await ledgerStore(ledger).withProjectLock(async () => {
          const row = await ledgerStore(ledger)
            .db.selectFrom("project_locks")
            .selectAll()
            .executeTakeFirstOrThrow();
          return Number(row.expires_at) - Date.now();
        });
        expect(expiresIn).toBeGreaterThan(60_000);
      } finally {
        await ledger.close();
      }
    } finally {
      await p.close();
    }
  });

  it("refuses a lease length that is not a sane number of milliseconds", async () => {
    const p = await openFixtureProject("basic", "sqlite");
    try {
      for (const bad of [0, 10, 1.5, Number.NaN, 10 ** 12]) {
        const error = await openLedger({ root: p.root, database: p.db.db, lockLeaseMs: bad }).catch(
          (e: unknown) => e,
        );
        expect(isLedgerError(error, "InvalidInput")).toBe(true);
        expect((error as Error).message).toContain("lockLeaseMs");
      }
    } finally {
      await p.close();
    }
  });
});
