import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * kysely's CommonJS build bundled into one file beside this module by the package build
 * (scripts/bundle-kysely.mjs). Loading its ~260 files one by one (resolve, read, compile each)
 * was the largest part of a cold `awr` read; one file loads in a fraction of that. Source runs
 * (tests) have no such file and require "kysely" itself: the same code and version.
 */
const BUNDLE = fileURLToPath(new URL("./kysely.cjs", import.meta.url));

/**
 * The kysely values the ledger uses. Every ledger module takes them from here (types may still
 * come from "kysely" with `import type`): a value import of "kysely" would load its ES module
 * build as well, about 260 more files.
 *
 * A caller may still hand openLedger a Kysely instance made from kysely's own builds: kysely
 * recognises queries, expressions and `sql` fragments by shape, not by class, so the copies work
 * together; the one class test the ledger makes (which SQL family a caller's instance speaks)
 * goes by the adapter's class name for that reason (see detectDialect).
 */
const require = createRequire(import.meta.url);
const kysely = require(existsSync(BUNDLE) ? BUNDLE : "kysely") as typeof import("kysely");

export const { Kysely: KyselyClass, PostgresAdapter, PostgresDialect, SqliteDialect, sql } = kysely;
