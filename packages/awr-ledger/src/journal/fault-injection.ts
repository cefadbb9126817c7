/**
 * TEST-ONLY fault switch (docs/design/fault-switch.md). When the environment variable AWR_TEST_FAULT names a point
 * (`after_begin`: after `mcp.operation_started` is durable; `after_domain`: after the domain
 * commit, before `mcp.operation_finished`), the process kills itself with SIGKILL there, so
 * tests can prove recovery from a real crash; `finish_fails` instead throws where the final
 * receipt would be written (a lost receipt the process survives). The reviewed source changes
 * have two of their own: `change_after_prepare` (the change is journaled, its source not yet
 * written) and `change_after_source_write` (the source is written, not yet reindexed). Never set it in production:
 * nothing else reads it.
 */
export const FAULT_POINTS = [
  "after_begin",
  "after_domain",
  "finish_fails",
  "change_after_prepare",
  "change_after_source_write",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export const FAULT_ENV = "AWR_TEST_FAULT";

export function injectFault(point: FaultPoint): void {
  if (process.env[FAULT_ENV] !== point) return;
  if (point === "finish_fails") throw new Error("injected fault: the final receipt was lost");
  process.kill(process.pid, "SIGKILL");
}
