import { constants, type Stats } from "node:fs";
import { lstat, open } from "node:fs/promises";

/** A registry file larger than this is refused before parsing. */
export const REGISTRY_MAX_BYTES = 1024 * 1024;

export type RegistryFileRead = { ok: true; text: string } | { ok: false; problem: string };

/** A path as the user would type it in a shell command. */
function shellWord(path: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "a special file";
}

const notRegular = (info: Stats) =>
  `is ${kindOf(info)}, not a regular file; give the path of the registry TOML file itself`;

/**
 * Reads the registry text, refusing a file the operator cannot trust: anything but a regular
 * file (a FIFO must not hang startup, a directory or device is a wrong path), a file writable by
 * group or others (whoever can write it can grant themselves every project), or one over
 * REGISTRY_MAX_BYTES. A symbolic link is followed, as configuration managers and secret mounts
 * use them; the file it leads to must pass the same checks.
 *
 * The open is non-blocking, so it returns at once even for a FIFO, and the checks use fstat on
 * the opened descriptor, so the file checked is the file read. Never throws for a file problem;
 * rejects with `signal.reason` when aborted.
 */
export async function readRegistryFile(
  file: string,
  options: { signal?: AbortSignal } = {},
): Promise<RegistryFileRead> {
  const { signal } = options;
  const fail = (problem: string) => ({ ok: false as const, problem });
  let linked: Stats;
  try {
    linked = await lstat(file);
  } catch (error) {
    return fail(`cannot read the file: ${(error as Error).message}`);
  }
  // Refused before opening: nothing but a regular file or a link to one is ever opened.
  if (!linked.isFile() && !linked.isSymbolicLink()) return fail(notRegular(linked));

  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return fail(`cannot read the file: ${(error as Error).message}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return fail(notRegular(info));
    if ((info.mode & 0o022) !== 0) {
      const mode = (info.mode & 0o777).toString(8).padStart(4, "0");
      return fail(
        `is writable by group or others (mode ${mode}), so another user could grant themselves access; run \`chmod go-w ${shellWord(file)}\``,
      );
    }
    if (info.size > REGISTRY_MAX_BYTES) {
      return fail(`file is ${info.size} bytes; the limit is ${REGISTRY_MAX_BYTES} (1 MiB)`);
    }
    return { ok: true, text: await handle.readFile({ encoding: "utf8", signal }) };
  } catch (error) {
    signal?.throwIfAborted();
    return fail(`cannot read the file: ${(error as Error).message}`);
  } finally {
    await handle.close();
  }
}
