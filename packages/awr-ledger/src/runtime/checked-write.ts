import type { Kysely } from "kysely";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { CommitUnit, DomainEvent } from "../journal/operation-scope.js";
import { runJournaledWrite, type WriteReceipt } from "../journal/run-write.js";
import type { LedgerSchema } from "../storage/schema.js";

/** What a checked write's change yields: the tool result and the terminal event recording it. */
export interface CheckedChange<R> {
  result: R;
  event: DomainEvent;
}

export interface CheckedWrite<C, R extends object> {
  /** The checked tool input as the caller sent it. */
  input: Readonly<WriteFields>;
  caller: RuntimeCaller;
  /**
   * Validates the write against the ledger and returns what the change needs. It runs twice:
   * as the precheck (so a refused write journals nothing) and again inside the commit, where
   * its answer is the one acted on. `nowMs` is the clock of that run.
   */
  check: (db: Kysely<LedgerSchema>, nowMs: number) => Promise<C>;
  /** The domain change: returns the tool result and the terminal event that records it. */
  apply: (unit: CommitUnit, checked: C) => Promise<CheckedChange<R>>;
}

/**
 * A write whose precheck never answers early: check, then one commit that applies the change and
 * appends its single terminal event (carrying the result).
 */
export function runCheckedWrite<C, R extends object>(
  ctx: RuntimeContext,
  spec: CheckedWrite<C, R>,
  options?: CallOptions,
): Promise<R & WriteReceipt> {
  return runJournaledWrite(
    ctx,
    {
      input: spec.input,
      caller: spec.caller,
      precheck: async (db) => {
        await spec.check(db, ctx.now());
        return undefined;
      },
      domain: (op) =>
        op.commit(async (unit) => {
          const checked = await spec.check(unit.tx, unit.nowMs);
          const { result, event } = await spec.apply(unit, checked);
          // A tool result is a plain JSON object; the terminal event records it for recovery.
          await unit.terminal(event, result as Record<string, unknown>);
          return result;
        }),
    },
    options,
  );
}
