import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { throwIfAborted } from "../../internal/abort.js";
import { sql } from "../../internal/kysely.js";
import { backoff, type LockOptions } from "../project-lock.js";
import type { LedgerSchema } from "../schema.js";

/** A signed 64-bit advisory-lock key derived from the project id, as decimal text. */
export function advisoryKey(projectId: string): string {
  return createHash("sha256")
    .update(`awr-project:${projectId}`)
    .digest()
    .readBigInt64BE(0)
    .toString();
}

/**
 * PostgreSQL's cross-process project lock: a session advisory lock on the project's key, held on
 * one dedicated pooled connection for the whole of `fn` (polled with backoff, so `signal` can end
 * the wait). Write transactions take the same key as a transaction-scoped lock, so they wait.
 */
export async function holdAdvisoryLock<T>(
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
