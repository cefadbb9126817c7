import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { withCase } from "./support/isolation-case.js";

/**
 * Condition 1: a program using AWR through its published package reaches history only through
 * domain operations. A separate Node process in a temporary package that depends on
 * @awr/awr-ledger (sources through the @awr/source condition, so no build is needed) probes
 * every published entry and an open ledger (support/surface-probe.mjs). The type-level half is
 * public-surface.ts, which `pnpm typecheck` checks.
 */
const LEDGER_PACKAGE = fileURLToPath(new URL("../../../../packages/awr-ledger", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/tsx", import.meta.url));
const PROBE = fileURLToPath(new URL("./support/surface-probe.mjs", import.meta.url));

async function consumerPackage(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "awr-isolation-consumer-"));
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      type: "module",
      dependencies: { "@awr/awr-ledger": "*" },
    }),
  );
  await mkdir(join(dir, "node_modules", "@awr"), { recursive: true });
  await symlink(LEDGER_PACKAGE, join(dir, "node_modules", "@awr", "awr-ledger"));
  await symlink(TSX, join(dir, "node_modules", "tsx"));
  return dir;
}

function probe(
  cwd: string,
  root: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=@awr/source", "--import", "tsx", PROBE, root],
    {
      cwd,
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("event_opaque_storage_api", () =>
    withCase(backend, async (c) => {
      const consumer = await consumerPackage();
      try {
        const run = await probe(consumer, c.root);
        expect(run.code, run.stderr).toBe(0);
        const result = JSON.parse(run.stdout) as { leaks: string[]; deepImport: string };
        expect(result).toEqual({ leaks: [], deepImport: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
      } finally {
        await rm(consumer, { recursive: true, force: true });
      }
    }),
  );
});
