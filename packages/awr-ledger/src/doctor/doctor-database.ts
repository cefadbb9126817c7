import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import type { DatabaseReport } from "../storage/database-doctor.js";
import type { StorageDialect } from "../storage/dialect.js";
import { MIGRATIONS } from "../storage/migrations/index.js";
import type { LedgerSchema } from "../storage/schema.js";

async function readMigrations(
  db: Kysely<LedgerSchema>,
): Promise<DatabaseReport["migrations"] | undefined> {
  try {
    const rows = await db
      .selectFrom("awr_migrations")
      .select(["version", "name", "applied_at"])
      .orderBy("version")
      .execute();
    return rows.map((r) => ({
      version: Number(r.version),
      name: r.name,
      applied_at: Date.parse(r.applied_at),
    }));
  } catch {
    return undefined;
  }
}

/** The migration catalog is exactly this build's steps 1..n, by version and name. */
function catalogMatches(migrations: DatabaseReport["migrations"]): boolean {
  return (
    migrations.length === MIGRATIONS.length &&
    migrations.every(
      (m, i) => m.version === MIGRATIONS[i]?.version && m.name === MIGRATIONS[i]?.name,
    )
  );
}

/**
 * Inspects the ledger database `db` (already inside one read snapshot) with `dialect`'s doctor
 * queries (docs/design/work-branches.md, "awr doctor"), creating, migrating and repairing
 * nothing. Throws Storage when it is not an AWR ledger at all (no migration catalog and no
 * project state).
 */
export async function inspectDatabase(
  db: Kysely<LedgerSchema>,
  dialect: StorageDialect,
): Promise<DatabaseReport> {
  const read = await readMigrations(db);
  if (read === undefined) {
    throw new LedgerError(
      "Storage",
      "not an AWR database: it has no awr_migrations table; check the path (or the manifest's [storage]) names this project's ledger",
    );
  }
  const issues = await dialect.doctor.schemaIssues(db);
  const catalogOk = catalogMatches(read);
  if (!catalogOk) issues.push("migration catalog does not match the supported schema");
  const schemaVersion = read.reduce((max, m) => Math.max(max, m.version), 0);
  const latest = MIGRATIONS.length;
  if (schemaVersion > latest) issues.unshift(`unsupported schema version ${schemaVersion}`);
  const report = await dialect.doctor.report(db, { schemaVersion, read, issues });
  const ok =
    report.integrity.length === 1 &&
    report.integrity[0] === "ok" &&
    report.foreign_key_violations === 0 &&
    report.foreign_key_check_error === undefined &&
    schemaVersion === latest &&
    issues.length === 0;
  return { ok, ...report };
}
