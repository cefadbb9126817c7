import { createRequire } from "node:module";

/**
 * Where the ledger finds its database drivers (better-sqlite3 and pg, optional peers). They are
 * resolved first through the `require` an application hands over with loadDriversFrom, then
 * from the ledger's own location. An application that depends on a driver hands its own
 * `require`, so the driver is found in any install layout: a global npm install puts the driver
 * in the application's node_modules, where the ledger's own resolution never looks.
 *
 * The handed `require` is kept on globalThis under a registered symbol: one process can hold
 * several copies of the ledger's modules (the bundled `awr` holds one, the @awr/awr-server it
 * loads another), and every copy must see what the application handed.
 */
const HANDED = Symbol.for("@awr/awr-ledger.driver-require");
const ownRequire = createRequire(import.meta.url);

type Holder = { [HANDED]?: NodeJS.Require };

/**
 * Makes the ledger resolve better-sqlite3 and pg through `require` before its own location.
 * Call it once, before opening a ledger, with `createRequire(import.meta.url)` of the module
 * whose package depends on the drivers. A later call replaces the earlier one.
 */
export function loadDriversFrom(require: NodeJS.Require): void {
  (globalThis as Holder)[HANDED] = require;
}

/** The requires to try, the application's first. */
function requires(): NodeJS.Require[] {
  const handed = (globalThis as Holder)[HANDED];
  return handed === undefined || handed === ownRequire ? [ownRequire] : [handed, ownRequire];
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "MODULE_NOT_FOUND";
}

/** Runs `find` with each require in turn; throws the last MODULE_NOT_FOUND when none has it. */
function firstFound<T>(find: (require: NodeJS.Require) => T): T {
  let missing: unknown;
  for (const require of requires()) {
    try {
      return find(require);
    } catch (error) {
      if (!isMissing(error)) throw error;
      missing = error;
    }
  }
  throw missing;
}

/** The driver package `name` (throws MODULE_NOT_FOUND when no require finds it). */
export function requireDriver<T>(name: "better-sqlite3" | "pg"): T {
  return firstFound((require) => require(name) as T);
}

/** The path of `file` inside the driver package `name`, from the require that finds the package. */
export function driverFile(name: "better-sqlite3" | "pg", file: string): string {
  return firstFound((require) => {
    require.resolve(`${name}/package.json`);
    return require.resolve(`${name}/${file}`);
  });
}
