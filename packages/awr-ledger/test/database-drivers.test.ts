import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_URL } from "./helpers/backends.js";
import { buildPackageForChildren } from "./helpers/child-build.js";

/**
 * An install where the database drivers are not beside the ledger but in the application's own
 * node_modules (as a global npm install of the CLI lays them out): the ledger finds them only
 * through the require the application hands it with loadDriversFrom.
 */

const packageModules = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules");
let build: ReturnType<typeof buildPackageForChildren>;
let app: string;

beforeAll(() => {
  build = buildPackageForChildren({ without: ["better-sqlite3", "pg"] });
  app = mkdtempSync(join(tmpdir(), "awr-drivers-app-"));
  mkdirSync(join(app, "node_modules"));
  for (const name of ["better-sqlite3", "pg"]) {
    symlinkSync(join(packageModules, name), join(app, "node_modules", name), "dir");
  }
  writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module" }));
});
afterAll(() => {
  build?.remove();
  if (app !== undefined) rmSync(app, { recursive: true, force: true });
});

/** Runs, in the application's directory, a module that opens a ledger database and prints what it finds. */
function runApp(handDrivers: boolean, open: string): { ok: boolean; output: string } {
  const script = join(app, `open-${handDrivers}-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `import { createRequire } from "node:module";
import { loadDriversFrom } from ${JSON.stringify(join(build.dir, "src", "drivers.js"))};
import * as testing from ${JSON.stringify(build.testingEntry)};
${handDrivers ? "loadDriversFrom(createRequire(import.meta.url));" : ""}
try {
  const opened = await (${open})(testing);
  const row = await opened.db.selectNoFrom((eb) => eb.val(1).as("one")).execute();
  await opened.close();
  console.log("opened", row.length);
} catch (error) {
  console.log("failed", error.code ?? "", error.message);
}
`,
  );
  const output = execFileSync(process.execPath, [script], {
    cwd: app,
    encoding: "utf8",
    env: { PATH: process.env.PATH },
  }).trim();
  return { ok: output.startsWith("opened"), output };
}

const sqliteOpen = (file: string) => `(t) => t.openSqliteDatabase(${JSON.stringify(file)})`;

describe("database drivers handed by the application", () => {
  it("without them, the SQLite backend says the driver is missing", () => {
    const result = runApp(false, sqliteOpen(join(app, "without.db")));
    expect(result.output).toContain(
      "failed Unsupported The SQLite backend needs the better-sqlite3 package",
    );
  });

  it("with loadDriversFrom, the ledger opens SQLite through the application's better-sqlite3", () => {
    const result = runApp(true, sqliteOpen(join(app, "with.db")));
    expect(result.output).toBe("opened 1");
  });

  it.runIf(PG_URL !== undefined)("and PostgreSQL through the application's pg", () => {
    const open = (schema: string) =>
      `(t) => t.openPostgresDatabase(${JSON.stringify(PG_URL)}, { schema: ${JSON.stringify(schema)} })`;
    const schema = `drivers_${process.pid}`;
    expect(runApp(false, open(`${schema}_a`)).output).toContain(
      "failed Unsupported The PostgreSQL backend needs the pg package",
    );
    expect(runApp(true, open(`${schema}_b`)).output).toBe("opened 1");
  });
});
