import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The fixture that misbehaves on request (see its header for flags and methods). */
export const MISBEHAVING_SERVER = fileURLToPath(
  new URL("../fixtures/misbehaving-server.mjs", import.meta.url),
);
/** A well-behaved MCP server built on the official SDK. */
export const SDK_SERVER = fileURLToPath(new URL("../fixtures/sdk-server.mjs", import.meta.url));

/** The installed server-everything entry point (run it with `node <entry> stdio`). */
export function serverEverythingEntry(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@modelcontextprotocol/server-everything/package.json");
  return join(dirname(manifest), "dist", "index.js");
}

/**
 * Whether `pid` is a running process. A zombie (dead, not yet reaped, which happens to orphans
 * under inits that never reap) is not running: signal 0 alone would say it is.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    // No /proc entry on Linux means the process is gone; elsewhere signal 0 had the last word.
    return process.platform !== "linux";
  }
}
