import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { sleep, throwIfAborted } from "../internal/abort.js";
import { AsyncMutex } from "../internal/async-mutex.js";
import { sql } from "../internal/kysely.js";
import { ulid } from "../internal/ulid.js";
import { currentLeaseHolder, leaseHolderIsGone } from "./lock-holder.js";
import type { Backend } from "./migration.js";
import type { LedgerSchema, ProjectLockTable } from "./schema.js";
import { inTransaction, sqliteTransaction } from "./transaction.js";

/**
 * The project write lock, in two layers:
 * - in process: one FIFO mutex per project id, shared by every store of this process;
 * - across processes: on PostgreSQL a session advisory lock held on one dedicated pooled
 *   connection; on SQLite a lease row in `project_locks` (holder id + expiry), taken in a
 *   BEGIN IMMEDIATE transaction, polled with backoff, renewed while held. The row records the
 *   holder's pid, pid-space key and process start time: a waiter in the same pid space takes the
 *   lease over at once when that holder is provably dead (gone, a zombie, or its pid reused);
 *   otherwise (another host, a network filesystem, uncertainty) it is stolen only once expired,
 *   so a crashed holder elsewhere blocks others for at most one lease period.
 * Holding is tracked in AsyncLocalStorage so code already inside the lock re-enters it freely.
 */
const mutexes = new Map<string, AsyncMutex>();
const held = new AsyncLocalStorage<ReadonlySet<string>>();

export const DEFAULT_LEASE_MS = 30_000;
const MIN_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 200;

export function mutexFor(projectId: string): AsyncMutex {
  let mutex = mutexes.get(projectId);
  if (mutex === undefined) {
    mutex = new AsyncMutex();
    mutexes.set(projectId, mutex);
  }
  return mutex;
}

export function holdsProjectLock(projectId: string): boolean {
  return held.getStore()?.has(projectId) ?? false;
}

export function runHoldingLock<T>(projectId: string, fn: () => Promise<T>): Promise<T> {
  const current = held.getStore() ?? new Set<string>();
  return held.run(new Set([...current, projectId]), fn);
}

/** A signed 64-bit advisory-lock key derived from the project id, as decimal text. */
export function advisoryKey(projectId: string): string {
  return createHash("sha256")
    .update(`awr-project:${projectId}`)
    .digest()
    .readBigInt64BE(0)
    .toString();
}

export async function backoff(attempt: number, signal?: AbortSignal): Promise<void> {
  const ceiling = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** Math.min(attempt, 8));
  await sleep(ceiling / 2 + Math.random() * (ceiling / 2), signal);
}

export interface LockOptions {
  signal?: AbortSignal | undefined;
  /** SQLite lease length in milliseconds (default: the store's, else DEFAULT_LEASE_MS). */
  leaseMs?: number | undefined;
}

/**
 * Holds the cross-process lock (the caller already holds the in-process mutex) around fn.
 * `relaxedLeaseCommits` (SQLite, only for a connection known to run synchronous=FULL): commit
 * the lease rows without an fsync, see leaseStatements.
 */
export async function holdCrossProcessLock<T>(
  db: Kysely<LedgerSchema>,
  backend: Backend,
  projectId: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
  relaxedLeaseCommits = false,
): Promise<T> {
  return backend === "postgres"
    ? holdAdvisoryLock(db, projectId, fn, options)
    : holdLease(db, projectId, fn, options, relaxedLeaseCommits);
}

/**
 * Runs the statements that take, renew or release a SQLite lease row on one held connection.
 * When `relaxed`, they run under `PRAGMA synchronous = NORMAL`, switched back to FULL before the
 * connection is let go (the setting is per connection and may change between transactions).
 * Why that weakens nothing:
 * - Mutual exclusion is about visibility, not durability: another process sees the committed
 *   lease row through the shared WAL and its index at once, fsync'd or not; every writer still
 *   takes SQLite's write lock (BEGIN IMMEDIATE) to read or change the row.
 * - In WAL mode NORMAL only skips the fsync at commit; checkpoints still sync the WAL before and
 *   the database file after, and the WAL header is synced when the log is reused, so a relaxed
 *   commit can never corrupt the file or un-do a durable one (unlike OFF, whose checkpoints do
 *   not sync).
 * - The journal's own commits run at FULL and fsync the WAL, which holds every earlier frame, so
 *   a lease row taken this way is on disk before anything that depends on it.
 * - Only an OS crash or power loss can lose a relaxed commit, and then its holder is gone too: a
 *   lost take leaves no lease (nobody holds one); a lost release leaves the row of a holder from
 *   the previous boot, whose pid cannot be compared (the boot id is part of the pid space), so
 *   it is honoured until it expires: the same wait as after a crash while holding the lock.
 * Setting `synchronous` cannot fail on an open connection, and FULL is restored before kysely's
 * connection mutex lets any other statement (a journal commit) run on the connection.
 */
async function leaseStatements<T>(
  db: Kysely<LedgerSchema>,
  relaxed: boolean,
  fn: (conn: Kysely<LedgerSchema>) => Promise<T>,
): Promise<T> {
  if (!relaxed) return fn(db);
  return db.connection().execute(async (conn) => {
    await sql`PRAGMA synchronous = NORMAL`.execute(conn);
    try {
      return await fn(conn);
    } finally {
      await sql`PRAGMA synchronous = FULL`.execute(conn);
    }
  });
}

async function holdAdvisoryLock<T>(
  db: Kysely<LedgerSchema>,
  projectId: string,
  fn: () => Promise<T>,
  { signal }: LockOptions,
): Promise<T> {
  const key = advisoryKey(projectId);
  return db.connection().execute(async (conn) => {
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal);
      const { rows } = await sql<{
        ok: boolean;
      }>`SELECT pg_try_advisory_lock(${key}::bigint) AS ok`.execute(conn);
      if (rows[0]?.ok) break;
      await backoff(attempt, signal);
    }
    try {
      return await fn();
    } finally {
      await sql`SELECT pg_advisory_unlock(${key}::bigint)`.execute(conn);
    }
  });
}

async function holdLease<T>(
  db: Kysely<LedgerSchema>,
  projectId: string,
  fn: () => Promise<T>,
  { signal, leaseMs = DEFAULT_LEASE_MS }: LockOptions,
  relaxed: boolean,
): Promise<T> {
  const holder = ulid();
  const me = await currentLeaseHolder();
  for (let attempt = 0; ; attempt++) {
    throwIfAborted(signal);
    const taken = await leaseStatements(db, relaxed, (conn) =>
      relaxed ? sqliteTransaction(conn, take) : inTransaction(conn, "sqlite", take),
    );
    if (taken) break;
    await backoff(attempt, signal);
  }
  async function take(tx: Kysely<LedgerSchema>): Promise<boolean> {
    const lease = await tx
      .selectFrom("project_locks")
      .selectAll()
      .where("project_id", "=", projectId)
      .executeTakeFirst();
    if (lease !== undefined && (await leaseIsLive(lease))) return false;
    const row = {
      holder,
      expires_at: Date.now() + leaseMs,
      holder_pid: me.pid,
      holder_host: me.host,
      holder_start: me.start,
    };
    await tx
      .insertInto("project_locks")
      .values({ project_id: projectId, ...row })
      .onConflict((oc) => oc.column("project_id").doUpdateSet(row))
      .execute();
    return true;
  }
  const renew = setInterval(
    () => {
      leaseStatements(db, relaxed, (conn) =>
        conn
          .updateTable("project_locks")
          .set({ expires_at: Date.now() + leaseMs })
          .where("project_id", "=", projectId)
          .where("holder", "=", holder)
          .execute(),
      ).catch(() => undefined);
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    // Released by expiring the row in place rather than deleting it: the next take then updates
    // the same row (one page) instead of inserting it and its key again (two more), every write.
    await leaseStatements(db, relaxed, (conn) =>
      conn
        .updateTable("project_locks")
        .set({ expires_at: 0 })
        .where("project_id", "=", projectId)
        .where("holder", "=", holder)
        .execute(),
    );
  }
}

/** A lease is live while unexpired, unless its holder is provably dead (see lock-holder.ts). */
async function leaseIsLive(lease: ProjectLockTable): Promise<boolean> {
  if (Number(lease.expires_at) <= Date.now()) return false;
  return !(await leaseHolderIsGone(lease));
}

/**
 * True when another process holds a live SQLite lease (checked inside a write transaction). An
 * unexpired lease left by a provably dead holder is deleted here, in the caller's transaction; an
 * expired one (a released lease is expired in place) is left for its (perhaps only stalled)
 * holder to renew or a waiter to take over.
 */
export async function leaseHeldElsewhere(
  tx: Kysely<LedgerSchema>,
  projectId: string,
): Promise<boolean> {
  const lease = await tx
    .selectFrom("project_locks")
    .selectAll()
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  if (lease === undefined || Number(lease.expires_at) <= Date.now()) return false;
  const gone = await leaseHolderIsGone(lease);
  if (!gone) return true;
  await tx
    .deleteFrom("project_locks")
    .where("project_id", "=", projectId)
    .where("holder", "=", lease.holder)
    .execute();
  return false;
}
