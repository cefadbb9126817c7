import { type Kysely, sql } from "kysely";
import { LedgerError } from "../errors.js";
import type { Backend, Migration } from "./migration.js";
import { MIGRATIONS } from "./migrations/index.js";
import { inTransaction } from "./transaction.js";

/** A constant advisory-lock key so concurrent openers of one PostgreSQL schema migrate once. */
const PG_MIGRATION_LOCK = "7301002001";

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
  backend: Backend,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  ordered.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration versions must be 1..n; found ${m.version}`);
  });
  const latest = latestSchemaVersion(ordered);
  return inTransaction(db, backend, async (tx) => {
    if (backend === "postgres") {
      await sql`SELECT pg_advisory_xact_lock(${PG_MIGRATION_LOCK}::bigint)`.execute(tx);
    }
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
      await migration.up(tx, backend);
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
