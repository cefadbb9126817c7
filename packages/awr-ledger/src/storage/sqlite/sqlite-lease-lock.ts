import type { Kysely } from "kysely";
import { throwIfAborted } from "../../internal/abort.js";
import { sql } from "../../internal/kysely.js";
import { ulid } from "../../internal/ulid.js";
import { backoff, DEFAULT_LEASE_MS, type LockOptions } from "../project-lock.js";
import type { LedgerSchema, ProjectLockTable } from "../schema.js";
import { currentLeaseHolder, leaseHolderIsGone } from "./lock-holder.js";
import { inSqliteTransaction, sqliteTransaction } from "./sqlite-transaction.js";

/**
 * SQLite's cross-process project lock: a lease row in `project_locks` (holder id + expiry), taken
 * in a BEGIN IMMEDIATE transaction, polled with backoff, renewed while held. The row records the
 * holder's pid, pid-space key and process start time: a waiter in the same pid space takes the
 * lease over at once when that holder is provably dead (gone, a zombie, or its pid reused);
 * otherwise (another host, a network filesystem, uncertainty) it is stolen only once expired,
 * so a crashed holder elsewhere blocks others for at most one lease period.
 */

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

/** Holds the project's lease row around `fn`, renewing it every third of the lease length. */
export async function holdLease<T>(
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
      relaxed ? sqliteTransaction(conn, take) : inSqliteTransaction(conn, take),
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
    // A released row is always the same row (no holder, expired), so a write that was refused
    // leaves the database exactly as it found it.
    await leaseStatements(db, relaxed, (conn) =>
      conn
        .updateTable("project_locks")
        .set(RELEASED_LEASE)
        .where("project_id", "=", projectId)
        .where("holder", "=", holder)
        .execute(),
    );
  }
}

/** What a released lease row holds: nobody, expired. */
const RELEASED_LEASE = {
  holder: "",
  expires_at: 0,
  holder_pid: null,
  holder_host: null,
  holder_start: null,
} as const;

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
