import { createRequire } from "node:module";

/**
 * The kysely values the ledger uses, from kysely's CommonJS build. Every ledger module takes
 * them from here (types may still come from "kysely" with `import type`): a value import of
 * "kysely" loads its ES module build, about 260 files, which alone took longer than the rest of
 * `awr`'s start-up; the CommonJS build (the same code and version) loads in about half the time
 * because require reads each file synchronously and skips the ES loader's per-file work.
 *
 * A caller may still hand openLedger a Kysely instance made from the ES build: kysely recognises
 * queries, expressions and `sql` fragments by shape, not by class, so both copies work together;
 * the one class test the ledger makes (which SQL family a caller's instance speaks) goes by the
 * adapter's class name for that reason (see detectDialect).
 */
const kysely = createRequire(import.meta.url)("kysely") as typeof import("kysely");

export const { Kysely: KyselyClass, PostgresAdapter, PostgresDialect, SqliteDialect, sql } = kysely;
