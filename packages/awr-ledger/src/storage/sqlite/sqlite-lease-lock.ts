import type { Kysely } from "kysely";
import { throwIfAborted } from "../../internal/abort.js";
import { ulid } from "../../internal/ulid.js";
import { PreparedQuery } from "../prepared-query.js";
import {
  backoff,
  DEFAULT_LEASE_MS,
  HELD_LOCK,
  type LockHold,
  type LockOptions,
} from "../project-lock.js";
import type { LedgerSchema, ProjectLockTable } from "../schema.js";
import { runPlainStatement, withHeldConnection } from "./held-connection.js";
import { currentLeaseHolder, type LeaseHolder, leaseHolderIsGone } from "./lock-holder.js";
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
  return withHeldConnection(db, async (conn) => {
    await runPlainStatement(conn, "PRAGMA synchronous = NORMAL");
    try {
      return await fn(conn);
    } finally {
      await runPlainStatement(conn, "PRAGMA synchronous = FULL");
    }
  });
}

/**
 * Holds the project's lease row around `fn`, renewing it every third of the lease length. By
 * default the lease is taken by a commit of its own before `fn` and released by another after.
 * With `leaseInWrites` no commit of its own is needed on the way: the holder's first write
 * transaction takes it (or is told busy and retried after a backoff while another process
 * holds it), and the transaction that passes `releasesLock` releases it (a durable journal
 * commit, so the lease row is as durable as the rows it guards). A hold that ends with the lease
 * taken but not released (an error after the first commit) releases it afterwards as before; a
 * first transaction that rolled back took nothing. A holder that dies with
 * the lease taken leaves the same row either way, for the same takeover (lock-holder.ts).
 */
export async function holdLease<T>(
  db: Kysely<LedgerSchema>,
  projectId: string,
  fn: (hold: LockHold) => Promise<T>,
  { signal, leaseMs = DEFAULT_LEASE_MS, leaseInWrites = false }: LockOptions,
  relaxed: boolean,
): Promise<T> {
  const lease = { projectId, holder: ulid(), me: await currentLeaseHolder(), leaseMs };
  let renew: NodeJS.Timeout | undefined;
  const startRenewing = () => {
    renew = setInterval(
      () => {
        leaseStatements(db, relaxed, (conn) =>
          renewLeaseQuery.all(conn, {
            expires_at: Date.now() + leaseMs,
            project_id: projectId,
            holder: lease.holder,
          }),
        ).catch(() => undefined);
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    renew.unref();
  };
  let hold: LockHold = HELD_LOCK;
  let taken = !leaseInWrites;
  if (leaseInWrites) {
    // What the current transaction did to the lease; it counts once that transaction commits.
    let pending: { took: boolean; released: boolean } = { took: false, released: false };
    hold = {
      // The signal ends only the wait for the lease: once a write has taken it, the holder's
      // later writes (a journaled write's domain commit and final receipt) run to their end, so
      // a caller that gives up mid-way never leaves a begun request without its receipt.
      get signal() {
        return taken ? undefined : signal;
      },
      async enter(tx) {
        pending = { took: false, released: false };
        if (taken) return true;
        if (!(await takeLease(tx, lease))) return false;
        pending.took = true;
        return true;
      },
      async release(tx) {
        await releaseLease(tx, lease);
        pending.released = true;
      },
      committed() {
        if (pending.took) {
          taken = true;
          startRenewing();
        }
        if (pending.released) {
          taken = false;
          clearInterval(renew);
        }
        pending = { took: false, released: false };
      },
    };
  } else {
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal);
      const ok = await leaseStatements(db, relaxed, (conn) =>
        relaxed
          ? sqliteTransaction(conn, (tx) => takeLease(tx, lease))
          : inSqliteTransaction(conn, (tx) => takeLease(tx, lease)),
      );
      if (ok) break;
      await backoff(attempt, signal);
    }
    startRenewing();
  }
  try {
    return await fn(hold);
  } finally {
    clearInterval(renew);
    if (taken) await leaseStatements(db, relaxed, (conn) => releaseLease(conn, lease));
  }
}

interface Lease {
  projectId: string;
  holder: string;
  me: LeaseHolder;
  leaseMs: number;
}

const leaseRowQuery = new PreparedQuery<{ project_id: string }, ProjectLockTable>((db, $) =>
  db.selectFrom("project_locks").selectAll().where("project_id", "=", $("project_id")),
);

type LeaseRow = Omit<ProjectLockTable, "project_id">;

const takeLeaseQuery = new PreparedQuery<ProjectLockTable, never>((db, $) => {
  const row: LeaseRow = {
    holder: $("holder"),
    expires_at: $("expires_at"),
    holder_pid: $("holder_pid"),
    holder_host: $("holder_host"),
    holder_start: $("holder_start"),
  };
  return db
    .insertInto("project_locks")
    .values({ project_id: $("project_id"), ...row })
    .onConflict((oc) => oc.column("project_id").doUpdateSet(row));
});

const renewLeaseQuery = new PreparedQuery<
  { expires_at: number; project_id: string; holder: string },
  never
>((db, $) =>
  db
    .updateTable("project_locks")
    .set({ expires_at: $("expires_at") })
    .where("project_id", "=", $("project_id"))
    .where("holder", "=", $("holder")),
);

const releaseLeaseQuery = new PreparedQuery<{ project_id: string; holder: string }, never>(
  (db, $) =>
    db
      .updateTable("project_locks")
      .set(RELEASED_LEASE)
      .where("project_id", "=", $("project_id"))
      .where("holder", "=", $("holder")),
);

const dropLeaseQuery = new PreparedQuery<{ project_id: string; holder: string }, never>((db, $) =>
  db
    .deleteFrom("project_locks")
    .where("project_id", "=", $("project_id"))
    .where("holder", "=", $("holder")),
);

/** In a write transaction: takes the lease row unless another holder's lease is live. */
async function takeLease(tx: Kysely<LedgerSchema>, lease: Lease): Promise<boolean> {
  const current = await leaseRowQuery.first(tx, { project_id: lease.projectId });
  if (current !== undefined && (await leaseIsLive(current))) return false;
  await takeLeaseQuery.all(tx, {
    project_id: lease.projectId,
    holder: lease.holder,
    expires_at: Date.now() + lease.leaseMs,
    holder_pid: lease.me.pid,
    holder_host: lease.me.host,
    holder_start: lease.me.start,
  });
  return true;
}

/**
 * Releases the lease by expiring the row in place rather than deleting it: the next take then
 * updates the same row (one page) instead of inserting it and its key again (two more), every
 * write. A released row is always the same row (no holder, expired), so a write that was refused
 * leaves the database exactly as it found it.
 */
async function releaseLease(conn: Kysely<LedgerSchema>, lease: Lease): Promise<void> {
  await releaseLeaseQuery.all(conn, { project_id: lease.projectId, holder: lease.holder });
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
  const lease = await leaseRowQuery.first(tx, { project_id: projectId });
  if (lease === undefined || Number(lease.expires_at) <= Date.now()) return false;
  const gone = await leaseHolderIsGone(lease);
  if (!gone) return true;
  await dropLeaseQuery.all(tx, { project_id: projectId, holder: lease.holder });
  return false;
}
