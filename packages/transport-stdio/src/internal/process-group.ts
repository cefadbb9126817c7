import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { sleep } from "@awr/jsonrpc-core";
import type { ChildExit } from "./child-exit.js";

/**
 * POSIX systems let the child lead its own process group (spawned with `detached: true`), so
 * one signal reaches it and everything it started (an `npx` wrapper's real server included).
 * Windows has no process groups: there the child alone is signalled.
 */
export const USE_PROCESS_GROUPS = process.platform !== "win32";

/**
 * Sends `signal` to the child's whole process group, or to the child alone when it does not lead
 * one (`grouped` false: Windows, or a server spawned with `processGroup: false`).
 */
export function signalGroup(
  child: ChildProcess,
  signal: NodeJS.Signals,
  grouped = USE_PROCESS_GROUPS,
): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (grouped) {
    try {
      process.kill(-pid, signal);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return;
    }
  }
  try {
    child.kill(signal);
  } catch {
    // Already gone.
  }
}

/**
 * Whether any process of group `pgid` is still running. A process that died but was never reaped
 * (a zombie, common under container inits that do not reap orphans) counts as gone: it holds no
 * resources but a table slot, and no signal can affect it. Linux is read through /proc; elsewhere
 * the kernel's answer to signal 0 stands.
 */
export function groupIsAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    if (Number(fields[2]) === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}

/** Resolves true once `check()` is false, or false after `ms` milliseconds. */
export async function pollUntilGone(
  check: () => boolean,
  ms: number,
  everyMs = 20,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (check()) {
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
  return true;
}

/** SIGKILL cannot be caught; this only bounds the wait for the kernel to deliver it. */
const KILL_WAIT_MS = 5_000;

export interface StopOptions {
  /** First end the child's input and give it `closeGraceMs` to exit by itself. */
  graceful: boolean;
  endInput(): void;
  closeGraceMs: number;
  killGraceMs: number;
  /** Whether the child leads its own process group (else only the child is signalled). */
  grouped: boolean;
}

/**
 * Stops a child and everything in its process group: (end stdin, wait) SIGTERM, wait, SIGKILL
 * to the group until the child has exited; then the same for whatever is left of the group,
 * since the child's exit does not end what it started (the real server behind a wrapper).
 */
export async function stopProcessGroup(
  child: ChildProcess,
  exit: ChildExit,
  options: StopOptions,
): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  if (options.graceful && !exit.status) {
    options.endInput();
    await exit.wait(options.closeGraceMs);
  }
  const { grouped } = options;
  if (!exit.status) {
    signalGroup(child, "SIGTERM", grouped);
    await exit.wait(options.killGraceMs);
  }
  if (!exit.status) {
    signalGroup(child, "SIGKILL", grouped);
    await exit.wait(KILL_WAIT_MS);
  }
  if (grouped && groupIsAlive(pgid)) {
    signalGroup(child, "SIGTERM", grouped);
    if (!(await pollUntilGone(() => groupIsAlive(pgid), options.killGraceMs))) {
      signalGroup(child, "SIGKILL", grouped);
      await pollUntilGone(() => groupIsAlive(pgid), KILL_WAIT_MS);
    }
  }
}
