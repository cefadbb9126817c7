import pg from "pg";

/**
 * The storages a service suite runs over, each saying what a project and a process need to use
 * it, so a suite never asks which database it has. PostgreSQL comes from AWR_TEST_DATABASE_URL
 * (scripts/test/global-setup.ts starts a throwaway server when it is unset); under CI=true a
 * missing URL fails the run instead of leaving PostgreSQL out.
 */
export interface TestStorage {
  readonly name: "sqlite" | "postgres";
  /** What a service or CLI process needs in its environment to reach the storage. */
  readonly env: Record<string, string>;
  /** The manifest's `[storage]` table for a project in its own schema ("" for SQLite's default). */
  storageTable(schema: string): string;
  /** Drops the schemas a suite created (nothing to do for SQLite, whose files go with the dir). */
  drop(schemas: readonly string[]): Promise<void>;
}

const PG_URL = process.env["AWR_TEST_DATABASE_URL"];
if (!PG_URL && process.env["CI"] === "true") {
  throw new Error("AWR_TEST_DATABASE_URL is not set under CI=true: the PostgreSQL matrix must run");
}

/** The environment variable the PostgreSQL manifests name for the database URL. */
const URL_ENV = "AWR_SERVICE_PG_URL";

const SQLITE: TestStorage = {
  name: "sqlite",
  env: {},
  storageTable: () => "",
  drop: async () => undefined,
};

function postgres(url: string): TestStorage {
  return {
    name: "postgres",
    env: { [URL_ENV]: url },
    storageTable: (schema) =>
      `[storage]\nbackend = "postgres"\nurl_env = "${URL_ENV}"\nschema = "${schema}"\n`,
    async drop(schemas) {
      if (schemas.length === 0) return;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        for (const schema of schemas)
          await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

export const TEST_STORAGES: readonly TestStorage[] = PG_URL ? [SQLITE, postgres(PG_URL)] : [SQLITE];
