import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

/** The fingerprint of a missing source file. */
export const MISSING_FINGERPRINT = "missing";

export function fingerprintBytes(bytes: Uint8Array | string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

export interface SourceSnapshot {
  fingerprint: string;
  size: number;
  mtime_ms: number;
  text: string | null;
}

/** Reads a source file once: its text, its fingerprint and the stat values used for staleness. */
export function snapshotFile(absolute: string): SourceSnapshot {
  let bytes: Buffer;
  try {
    bytes = readFileSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { fingerprint: MISSING_FINGERPRINT, size: -1, mtime_ms: -1, text: null };
    }
    throw error;
  }
  const stat = statSync(absolute);
  return {
    fingerprint: fingerprintBytes(bytes),
    size: stat.size,
    mtime_ms: stat.mtimeMs,
    text: bytes.toString("utf8"),
  };
}

/** Cheap stat for the hot path: `undefined` when the file is missing. */
export function statFile(absolute: string): { size: number; mtime_ms: number } | undefined {
  try {
    const stat = statSync(absolute);
    return { size: stat.size, mtime_ms: stat.mtimeMs };
  } catch {
    return undefined;
  }
}
