import { LedgerError } from "../../errors.js";
import { requireDriver } from "../../internal/database-drivers.js";
import { KyselyClass, PostgresDialect, sql } from "../../internal/kysely.js";
import type { OpenedDatabase, StorageConfig } from "../dialect.js";
import type { LedgerSchema } from "../schema.js";
import { POSTGRES_DIALECT } from "./postgres-dialect.js";

export interface PostgresOptions {
  /** Schema that holds this project's ledger; created if missing. Default: the server's default. */
  schema?: string | undefined;
  /** Pool size; at least 2 because withProjectLock holds one connection while writes run. */
  poolMax?: number | undefined;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Opens a PostgreSQL ledger through pg (an optional peer). The URL never comes from a file. */
export async function openPostgresDatabase(
  url: string,
  options: PostgresOptions = {},
): Promise<OpenedDatabase> {
  let pg: typeof import("pg");
  try {
    pg = requireDriver<typeof import("pg")>("pg");
  } catch (cause) {
    throw new LedgerError(
      "Unsupported",
      "The PostgreSQL backend needs the pg package; add it to your application's dependencies " +
        "(npm install pg@8) or pass a Kysely instance to openLedger.",
      undefined,
      { cause },
    );
  }
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new LedgerError(
      "InvalidInput",
      `PostgreSQL schema name "${schema}" is not a plain identifier; use letters, digits and _.`,
    );
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: Math.max(2, options.poolMax ?? 8),
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    // int8 (counts, epoch milliseconds) as numbers, for this pool only.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === 20
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
    },
  });
  const db = new KyselyClass<LedgerSchema>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (schema !== undefined) await sql.raw(`CREATE SCHEMA IF NOT EXISTS "${schema}"`).execute(db);
  } catch (cause) {
    await db.destroy();
    throw new LedgerError(
      "Unsupported",
      `Cannot reach the PostgreSQL ledger: ${(cause as Error).message}. Check the URL in the ` +
        "environment variable named by [storage] url_env and that the server is running.",
      undefined,
      { cause },
    );
  }
  return { db, dialect: POSTGRES_DIALECT, close: () => db.destroy() };
}

/** Opens the PostgreSQL ledger whose URL is in the environment variable `storage.url_env`. */
export async function openPostgresFromEnvironment(
  storage: StorageConfig,
  env: NodeJS.ProcessEnv,
): Promise<OpenedDatabase> {
  const name = storage.url_env as string;
  const url = env[name];
  if (url === undefined || url === "") {
    throw new LedgerError(
      "InvalidInput",
      `The manifest stores this ledger in PostgreSQL, but the environment variable ${name} is not set; export ${name} with the database URL.`,
      { url_env: name },
    );
  }
  return openPostgresDatabase(url, { schema: storage.schema });
}
