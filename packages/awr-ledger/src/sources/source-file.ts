import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { LedgerError } from "../errors.js";
import { yieldToEventLoop } from "../internal/yield.js";

/**
 * Reading a source file safely: only a regular file is read. The real path is opened with
 * O_NONBLOCK (a FIFO can never block the open or the read) and O_NOFOLLOW (a link put in place
 * after the confinement check is refused), its type and size are taken from fstat of that
 * descriptor, and at most the cap plus one byte is read. FIFOs, devices, sockets, directories
 * and symlink loops are InvalidInput naming the source; a file over its cap is InvalidInput
 * naming the option that raises it.
 */

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);
const CHUNK = 1024 * 1024;

export interface SourceFileRead {
  bytes: Buffer;
  fingerprint: string;
  size: number;
  mtime_ms: number;
}

function kindOf(stat: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSymbolicLink(): boolean;
}): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isSymbolicLink()) return "a symlink that changed while it was read";
  return "not a regular file";
}

export function notRegular(label: string, what: string, adapter?: string): LedgerError {
  const fix =
    what === "a directory" && adapter !== "markdown-directory-v1"
      ? `; a directory of decision files needs adapter = "markdown-directory-v1" (domain "decisions")`
      : "; point the source at a regular file";
  return new LedgerError(
    "InvalidInput",
    `Source ${label} is ${what}, not a file it can read${fix}.`,
    {
      path: label,
    },
  );
}

export function overCap(label: string, size: number, cap: number): LedgerError {
  return new LedgerError(
    "InvalidInput",
    `Source ${label} is ${size} bytes, over its cap of ${cap} bytes; split the file or raise the ` +
      "cap with max_bytes in that source's [sources.options].",
    { path: label, size, max_bytes: cap },
  );
}

/** The real path of a source, or undefined when it does not exist. */
export function realSourcePath(absolute: string, label: string): string | undefined {
  try {
    return realpathSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    if (code === "ELOOP") {
      throw new LedgerError(
        "InvalidInput",
        `Source ${label} is a symlink loop; point the link at a real file or list the file itself.`,
        { path: label },
      );
    }
    throw error;
  }
}

function openError(error: unknown, label: string): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") throw notRegular(label, "a symlink that changed while it was read");
  if (code === "ENXIO") throw notRegular(label, "a socket");
  throw error;
}

/** Reads a source file without blocking the event loop; undefined when it does not exist. */
export async function readSourceFile(
  absolute: string,
  label: string,
  maxBytes: number,
  adapter?: string,
): Promise<SourceFileRead | undefined> {
  const real = realSourcePath(absolute, label);
  if (real === undefined) return undefined;
  const before = lstatSync(real);
  if (!before.isFile()) throw notRegular(label, kindOf(before), adapter);
  const handle = await open(real, OPEN_FLAGS).catch((error: unknown) => openError(error, label));
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegular(label, kindOf(stat), adapter);
    if (stat.size > maxBytes) throw overCap(label, stat.size, maxBytes);
    const hash = createHash("sha256");
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const part = chunk.subarray(0, bytesRead);
      hash.update(part);
      chunks.push(part);
      total += bytesRead;
      if (total > maxBytes) throw overCap(label, total, maxBytes);
      if (chunks.length % 8 === 0) await yieldToEventLoop();
    }
    return {
      bytes: Buffer.concat(chunks, total),
      fingerprint: `sha256:${hash.digest("hex")}`,
      size: total,
      mtime_ms: stat.mtimeMs,
    };
  } finally {
    await handle.close();
  }
}

/** The synchronous variant for small files (write-back); same checks. */
export function readSourceFileSync(
  absolute: string,
  label: string,
  maxBytes: number,
): SourceFileRead | undefined {
  const real = realSourcePath(absolute, label);
  if (real === undefined) return undefined;
  const before = lstatSync(real);
  if (!before.isFile()) throw notRegular(label, kindOf(before));
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    openError(error, label);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(label, kindOf(stat));
    if (stat.size > maxBytes) throw overCap(label, stat.size, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) throw overCap(label, total, maxBytes);
    }
    const exact = Buffer.concat(chunks, total);
    return {
      bytes: exact,
      fingerprint: `sha256:${createHash("sha256").update(exact).digest("hex")}`,
      size: total,
      mtime_ms: stat.mtimeMs,
    };
  } finally {
    closeSync(fd);
  }
}
