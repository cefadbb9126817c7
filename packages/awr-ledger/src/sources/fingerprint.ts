import { createHash } from "node:crypto";
import { statSync } from "node:fs";

/** The fingerprint of a missing source file. */
export const MISSING_FINGERPRINT = "missing";

export function fingerprintBytes(bytes: Uint8Array | string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** Cheap stat for the hot path (never opens the file): `undefined` when it is missing. */
export function statFile(absolute: string): { size: number; mtime_ms: number } | undefined {
  try {
    const stat = statSync(absolute);
    return { size: stat.size, mtime_ms: stat.mtimeMs };
  } catch {
    return undefined;
  }
}
