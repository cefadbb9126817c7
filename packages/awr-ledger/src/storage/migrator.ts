import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { sql } from "../internal/kysely.js";
import type { StorageDialect } from "./dialect.js";
import type { Migration } from "./migration.js";
import { MIGRATIONS } from "./migrations/index.js";

export interface MigrationResult {
  from: number;
  to: number;
  applied: number[];
}

export function latestSchemaVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/**
 * Brings the ledger schema to the newest version this code knows, in one transaction. A ledger
 * whose schema is newer than the code is refused (Unsupported) and left untouched.
 */
export async function migrateToLatest(
  // biome-ignore lint/suspicious/noExplicitAny: the runner predates the schema it creates.
  db: Kysely<any>,
  dialect: StorageDialect,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  ordered.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration versions must be 1..n; found ${m.version}`);
  });
  const latest = latestSchemaVersion(ordered);
  // Every open of an up-to-date ledger (the common case) settles with one plain SELECT, without
  // the write transaction below: BEGIN IMMEDIATE would take SQLite's write lock (waiting behind
  // any writer) just to learn there is nothing to do. Anything else takes the locked path, which
  // decides again from what it reads under the lock.
  if ((await appliedVersion(db)) === latest) return { from: latest, to: latest, applied: [] };
  return dialect.transaction(db, async (tx) => {
    await dialect.lockMigrations(tx);
    await sql`CREATE TABLE IF NOT EXISTS awr_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`.execute(tx);
    const row = await tx
      .selectFrom("awr_migrations")
      .select((eb) => eb.fn.max("version").as("version"))
      .executeTakeFirst();
    const current = Number(row?.version ?? 0);
    if (current > latest) {
      throw new LedgerError(
        "Unsupported",
        `This ledger's schema is version ${current}, newer than this AWR, which supports up to ` +
          `version ${latest}. Upgrade @awr/awr-ledger (the awr CLI or awr-mcp) to a release that ` +
          `knows schema version ${current}; a ledger is never downgraded.`,
        { ledger_version: current, supported_version: latest },
      );
    }
    const applied: number[] = [];
    for (const migration of ordered) {
      if (migration.version <= current) continue;
      for (const statement of dialect.choose(migration.statements)) {
        await sql.raw(statement).execute(tx);
      }
      await tx
        .insertInto("awr_migrations")
        .values({
          version: migration.version,
          name: migration.name,
          applied_at: new Date().toISOString(),
        })
        .execute();
      applied.push(migration.version);
    }
    return { from: current, to: Math.max(current, latest), applied };
  });
}

/**
 * The newest applied migration, read without a transaction; undefined when it cannot be read
 * (a new ledger has no awr_migrations table yet). Only a hint: migrateToLatest acts on it only
 * when it says the schema is already current.
 */
// biome-ignore lint/suspicious/noExplicitAny: the runner predates the schema it creates.
async function appliedVersion(db: Kysely<any>): Promise<number | undefined> {
  try {
    const row = await db
      .selectFrom("awr_migrations")
      .select((eb) => eb.fn.max("version").as("version"))
      .executeTakeFirst();
    return Number(row?.version ?? 0);
  } catch {
    return undefined;
  }
}
