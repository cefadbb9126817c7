export type IsolationBackend = "sqlite" | "postgres";

/**
 * Every condition runs on SQLite and on PostgreSQL. PostgreSQL needs AWR_TEST_DATABASE_URL (the
 * throwaway server of scripts/test/global-setup.ts, or CI's). Without it the PostgreSQL half is
 * left out locally, and the CI report check then fails; under CI=true a missing URL fails here.
 */
export const PG_URL = process.env["AWR_TEST_DATABASE_URL"];

if (PG_URL === undefined && process.env["CI"] === "true") {
  throw new Error(
    "AWR_TEST_DATABASE_URL is not set under CI=true: the isolation suite must run on PostgreSQL",
  );
}

export const BACKENDS: readonly IsolationBackend[] =
  PG_URL === undefined ? ["sqlite"] : ["sqlite", "postgres"];

/** The entry of `choices` for `backend`, so a test never compares the backend's name. */
export function perBackend<T>(backend: IsolationBackend, choices: { sqlite: T; postgres: T }): T {
  return choices[backend];
}
