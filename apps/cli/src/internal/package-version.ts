import { readFileSync } from "node:fs";

/**
 * This package's version, read from its package.json, which sits one directory above both
 * `src/` (tests) and `dist/` (the installed binary).
 */
export function packageVersion(): string {
  try {
    const raw = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
    const version = (JSON.parse(raw) as { version?: unknown }).version;
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
