import { createRequire } from "node:module";
import { driverFile, requireDriver } from "./database-drivers.js";

/**
 * Heavy dependencies that most operations never touch, loaded on first use instead of when the
 * ledger is imported: a CLI read on an up-to-date project parses no source and counts no tokens,
 * and importing them up front was most of `awr`'s start-up time (the o200k tables alone build a
 * large BPE table). They are loaded synchronously (their CommonJS builds, through require) so the
 * public functions that use them (SOURCE_ADAPTERS, countTokens, writeBackWorkItem) stay
 * synchronous. Each is loaded once per process; the same module instance is returned after.
 */
const requireDependency = createRequire(import.meta.url);

function once<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => {
    loaded ??= { value: load() };
    return loaded.value;
  };
}

/** The yaml package (its Node build is CommonJS, so this is the instance `import` would give). */
export const yamlModule = once(() => requireDependency("yaml") as typeof import("yaml"));

/** The markdown-it constructor. */
export const markdownItModule = once(
  () => requireDependency("markdown-it") as typeof import("markdown-it").default,
);

/** gpt-tokenizer's o200k_base encoding (the unit of every context budget). */
export const o200kModule = once(
  () =>
    requireDependency(
      "gpt-tokenizer/encoding/o200k_base",
    ) as typeof import("gpt-tokenizer/encoding/o200k_base"),
);

/**
 * better-sqlite3 (an optional peer, found as database-drivers.ts says; this throws
 * MODULE_NOT_FOUND when it is not installed, and a later call tries again) and where that
 * package's compiled addon lies, for each connection's `nativeBinding` option: without it the
 * package loads the `bindings` helper, which looks for the addon along some forty paths, about a
 * tenth of the file lookups of a cold `awr` read. The binding is undefined when the addon is
 * elsewhere (the package then finds it as usual). Required rather than imported: its entry is
 * CommonJS, which the ES loader would first scan for export names.
 */
const betterSqlite3 = once(() => {
  const Database = requireDriver<typeof import("better-sqlite3")>("better-sqlite3");
  let binding: string | undefined;
  try {
    binding = driverFile("better-sqlite3", "build/Release/better_sqlite3.node");
  } catch {
    binding = undefined;
  }
  return { Database, binding };
});

/** better-sqlite3's Database class. */
export const betterSqlite3Module = (): typeof import("better-sqlite3") => betterSqlite3().Database;

/**
 * A better-sqlite3 connection to `file`, with the addon named (betterSqlite3Binding). Every
 * connection the ledger opens goes through here; throws what better-sqlite3 throws.
 */
export function openBetterSqlite3(
  file: string,
  options: import("better-sqlite3").Options,
): import("better-sqlite3").Database {
  const { Database, binding } = betterSqlite3();
  return new Database(file, { ...options, nativeBinding: binding });
}
