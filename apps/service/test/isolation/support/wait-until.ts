/**
 * Waits until `check()` holds, polling; fails after `limitMs` naming what it waited for. The
 * suite's only way to let time pass: no test sleeps for a fixed time.
 */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  limitMs = 2_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${limitMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until the wall clock is past `expiresAt` (ms since the epoch, or an ISO time). */
export function waitPast(expiresAt: number | string): Promise<void> {
  const limit = typeof expiresAt === "number" ? expiresAt : Date.parse(expiresAt);
  if (Number.isNaN(limit)) throw new Error(`not a deadline: ${String(expiresAt)}`);
  return waitUntil(`the clock to pass ${new Date(limit).toISOString()}`, () => Date.now() > limit);
}
