import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { perBackend } from "./backends.js";
import type { DatabaseLocation } from "./snapshot.js";

/**
 * Condition 12's one injected failure: a trigger, created by the test in the case's own database
 * and dropped again, that refuses to insert a `session.started` event. The product has no hook
 * for it; the trigger makes the receipt insert fail inside the ledger's write transaction.
 */
const NAME = "isolation_fault_session_started";

export async function installFault(where: DatabaseLocation): Promise<void> {
  await perBackend(where.backend, { sqlite: installSqliteFault, postgres: installPostgresFault })(
    where,
  );
}

async function installSqliteFault(where: DatabaseLocation): Promise<void> {
  sqlite(where, (db) =>
    db.exec(`CREATE TRIGGER ${NAME} BEFORE INSERT ON events
             WHEN NEW.type = 'session.started'
             BEGIN SELECT RAISE(ABORT, 'isolation fault: session.started refused'); END`),
  );
}

async function installPostgresFault(where: DatabaseLocation): Promise<void> {
  const s = `"${where.schema}"`;
  await postgres(where, [
    `CREATE FUNCTION ${s}.${NAME}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.type = 'session.started' THEN
         RAISE EXCEPTION 'isolation fault: session.started refused';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER ${NAME} BEFORE INSERT ON ${s}.events
     FOR EACH ROW EXECUTE FUNCTION ${s}.${NAME}()`,
  ]);
}

export async function dropFault(where: DatabaseLocation): Promise<void> {
  const s = `"${where.schema}"`;
  await perBackend(where.backend, {
    sqlite: async () => sqlite(where, (db) => db.exec(`DROP TRIGGER ${NAME}`)),
    postgres: () =>
      postgres(where, [`DROP TRIGGER ${NAME} ON ${s}.events`, `DROP FUNCTION ${s}.${NAME}()`]),
  })();
}

function sqlite(where: DatabaseLocation, fn: (db: Database.Database) => void): void {
  const db = new Database(join(where.root, ".awr", "state.db"), { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    fn(db);
  } finally {
    db.close();
  }
}

async function postgres(where: DatabaseLocation, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: where.url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}
