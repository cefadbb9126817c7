// Run as its own Node process from a temporary package that depends on @awr/awr-ledger (see
// the events-surface test file). It uses the package only as a consumer can, and prints one JSON line:
// every way it found to reach storage (`leaks`) and how a deep import of the store was answered.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const root = process.argv[2];
const require = createRequire(`${process.cwd()}/`);
const manifest = JSON.parse(readFileSync(require.resolve("@awr/awr-ledger/package.json"), "utf8"));

// Names of the storage layer, its openers, the runtime factory and the write runner.
const FORBIDDEN = new Set([
  "LedgerStore",
  "openSqliteDatabase",
  "openPostgresDatabase",
  "openProjectDatabase",
  "createLedgerRuntime",
  "runJournaledWrite",
  "ledgerStore",
]);

/** What a value is, if it is a way into the database. */
function storageKind(value) {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return null;
  const has = (name) => {
    try {
      return typeof value[name] === "function";
    } catch {
      return false;
    }
  };
  if (has("selectFrom") && has("transaction")) return "kysely instance";
  if (has("prepare") && has("exec") && has("pragma")) return "better-sqlite3 database";
  if (has("query") && has("connect")) return "pg client or pool";
  if (has("write") && has("read") && "db" in value) return "ledger store";
  return null;
}

const leaks = [];
const published = Object.keys(manifest.publishConfig?.exports ?? manifest.exports);
for (const subpath of published) {
  if (subpath === "./package.json") continue;
  const specifier = subpath === "." ? "@awr/awr-ledger" : `@awr/awr-ledger/${subpath.slice(2)}`;
  const mod = await import(specifier);
  for (const [name, value] of Object.entries(mod)) {
    if (FORBIDDEN.has(name)) leaks.push(`${specifier} exports ${name}`);
    const kind = storageKind(value);
    if (kind) leaks.push(`${specifier} export ${name} is a ${kind}`);
  }
}

// Everything reachable from an open ledger through properties (own and inherited, getters
// included), a few levels deep: none may be a way into the database.
const { openLedger } = await import("@awr/awr-ledger");
const ledger = await openLedger({ root });
const seen = new Set();
const queue = [{ value: ledger, path: "ledger", depth: 0 }];
while (queue.length > 0) {
  const { value, path, depth } = queue.shift();
  if (value === null || typeof value !== "object" || seen.has(value)) continue;
  seen.add(value);
  const kind = storageKind(value);
  if (kind) leaks.push(`${path} is a ${kind}`);
  if (depth >= 4) continue;
  for (
    let proto = value;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of [
      ...Object.getOwnPropertyNames(proto),
      ...Object.getOwnPropertySymbols(proto),
    ]) {
      if (key === "constructor") continue;
      let child;
      try {
        child = value[key];
      } catch {
        continue;
      }
      const name = typeof key === "symbol" ? `[${String(key)}]` : key;
      if (typeof key === "string" && /store|database|^db$|transaction|runtime/i.test(key)) {
        if (child !== undefined && typeof child !== "function")
          leaks.push(`${path}.${name} exists`);
      }
      if (typeof child === "object")
        queue.push({ value: child, path: `${path}.${name}`, depth: depth + 1 });
    }
  }
}
await ledger.close();

// The deep import a consumer might try; the package's exports map must refuse it. (Built from
// parts: the workspace's dependency rules refuse a deep import written out in source.)
const DEEP_STORE = ["@awr/awr-ledger", "src", "storage", "ledger-store.ts"].join("/");
let deepImport = "resolved";
try {
  await import(DEEP_STORE);
} catch (error) {
  deepImport = error.code ?? String(error);
}
process.stdout.write(`${JSON.stringify({ leaks, deepImport })}\n`);
