import { readFile, readlink } from "node:fs/promises";
import { hostname } from "node:os";

/**
 * Who holds a SQLite project-lock lease, as recorded in its `project_locks` row, and whether
 * that holder is provably gone. A waiter may take a lease over before it expires only when the
 * holder is provably dead; anything uncertain (another host, a network filesystem, no /proc, a
 * row written by an older AWR) falls back to waiting for the lease to expire.
 */
export interface LeaseHolder {
  /** The holder's process id. */
  pid: number;
  /**
   * The pid space the pid belongs to: hostname, plus on Linux the boot id and the pid namespace.
   * Pids are only compared when this matches exactly (containers sharing a volume, a rebooted
   * machine and other hosts never compare pids; they wait for expiry).
   */
  host: string;
  /**
   * The process start time (Linux /proc/<pid>/stat field 22, clock ticks since boot), or null
   * where it cannot be read. Guards against a dead holder's pid having been reused.
   */
  start: string | null;
}

export interface RecordedLeaseHolder {
  holder_pid: number | null;
  holder_host: string | null;
  holder_start: string | null;
}

export interface ProcStat {
  state: string;
  start: string;
}

/**
 * Parses `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may itself hold
 * spaces or parentheses, so fields are counted after the LAST ")": state is field 3, starttime
 * field 22. Undefined for text that does not have that shape.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const state = fields[0];
  const start = fields[19];
  if (state === undefined || start === undefined || !/^\d+$/.test(start)) return undefined;
  return { state, start };
}

async function readProcStat(pid: number | "self"): Promise<ProcStat | "gone" | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "gone" : undefined;
  }
}

async function readTrimmed(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function readPidNamespace(): Promise<string | undefined> {
  try {
    return await readlink("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
}

let self: Promise<LeaseHolder & { proc: boolean }> | undefined;

/** This process's identity (computed once). `proc` tells whether /proc is usable here. */
function selfIdentity(): Promise<LeaseHolder & { proc: boolean }> {
  self ??= (async () => {
    const [stat, boot, pidNs] = await Promise.all([
      readProcStat("self"),
      readTrimmed("/proc/sys/kernel/random/boot_id"),
      readPidNamespace(),
    ]);
    const proc = stat !== undefined && stat !== "gone";
    const host = [hostname(), boot, pidNs].filter((part) => part !== undefined).join("|");
    return { pid: process.pid, host, start: proc ? stat.start : null, proc };
  })();
  return self;
}

/** The identity this process records in a lease it takes. */
export async function currentLeaseHolder(): Promise<LeaseHolder> {
  const { pid, host, start } = await selfIdentity();
  return { pid, host, start };
}

function signalZeroSaysGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to another user; only ESRCH proves it is gone.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * True only when the recorded holder is provably dead: it ran in this pid space (same host key)
 * and its pid no longer exists, is a zombie (nobody reaped it: PID 1 in some containers never
 * does), or now belongs to a process started at another time (pid reuse). False whenever that
 * cannot be proven; the caller then honours the lease until it expires.
 */
export async function leaseHolderIsGone(recorded: RecordedLeaseHolder): Promise<boolean> {
  const pid = recorded.holder_pid === null ? null : Number(recorded.holder_pid);
  if (pid === null || !Number.isSafeInteger(pid) || pid <= 0 || recorded.holder_host === null) {
    return false;
  }
  const me = await selfIdentity();
  if (recorded.holder_host !== me.host) return false;
  if (signalZeroSaysGone(pid)) return true;
  if (!me.proc) return false;
  const stat = await readProcStat(pid);
  if (stat === "gone") return true;
  if (stat === undefined) return false;
  if (stat.state === "Z" || stat.state === "X" || stat.state === "x") return true;
  return recorded.holder_start !== null && stat.start !== recorded.holder_start;
}
