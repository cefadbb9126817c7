import type { RuntimeContext } from "../core/runtime-context.js";
import { appendEvent, type NewEvent } from "../storage/events.js";
import type { LedgerTx } from "../storage/ledger-store.js";
import { PreparedQuery } from "../storage/prepared-query.js";
import { spendRevision } from "../storage/revision.js";
import type { EventTable } from "../storage/schema.js";

export type DomainEvent = Omit<NewEvent, "revision" | "operation_id" | "client" | "time">;

/** One durable domain commit: a transaction that has spent exactly one revision. */
export interface CommitUnit {
  tx: LedgerTx;
  revision: number;
  /** ISO time of this commit. */
  time: string;
  /** Milliseconds since the epoch, from the runtime clock. */
  nowMs: number;
  /** Appends a domain event bound to the operation. */
  event(event: DomainEvent): Promise<EventTable>;
  /**
   * Appends the operation's single terminal event. Its payload records the domain result
   * (`payload.awr_terminal.result`) so recovery can rebuild the result after a crash before (c).
   */
  terminal(event: DomainEvent, result: Record<string, unknown>): Promise<EventTable>;
}

/** The domain step (b) of a journaled write, or the single commit of a direct one. */
export interface OperationScope {
  /** Null for a direct write (no request_id): nothing is journaled. */
  operationId: string | null;
  requestId: string | null;
  client: string;
  tool: string;
  /** Runs `fn` in one write transaction that spends one revision. */
  commit<T>(fn: (unit: CommitUnit) => Promise<T>): Promise<T>;
  /** How many terminal events this operation has appended so far. */
  readonly terminalCount: number;
  /** The last terminal event appended (and committed) by this operation. */
  readonly terminalEvent: EventTable | undefined;
  /** The revision the last commit spent (0 before the first). */
  readonly lastRevision: number;
}

/** Where a terminal event keeps its marker and the domain result, inside the event payload. */
export const TERMINAL_PAYLOAD_KEY = "awr_terminal";

/** How every journaled write result names its terminal event. */
export interface TerminalEventRef {
  id: string;
  seq: number;
  revision: number;
  type: string;
}

export function terminalRef(
  row: Pick<EventTable, "id" | "seq" | "revision" | "type">,
): TerminalEventRef {
  return { id: row.id, seq: Number(row.seq), revision: Number(row.revision), type: row.type };
}

/**
 * The scope of one write's domain step. A journaled write's terminal event records the domain
 * result in its payload (for recovery); a direct write has nothing to recover, so it does not.
 */
export function createOperationScope(
  ctx: RuntimeContext,
  ids: { operationId: string | null; requestId: string | null; client: string; tool: string },
): OperationScope {
  let terminals = 0;
  let lastTerminal: EventTable | undefined;
  let lastRevision = 0;
  const journaled = ids.operationId !== null;
  return {
    ...ids,
    get terminalCount() {
      return terminals;
    },
    get terminalEvent() {
      return lastTerminal;
    },
    get lastRevision() {
      return lastRevision;
    },
    commit(fn) {
      return ctx.store.write(async (tx) => {
        const revision = await spendRevision(tx);
        lastRevision = revision;
        const nowMs = ctx.now();
        const time = new Date(nowMs).toISOString();
        let pending = 0;
        let pendingRow: EventTable | undefined;
        const bound = async (event: DomainEvent, extra: Record<string, unknown>) =>
          appendEvent(tx, {
            ...event,
            branch: await eventBranch(tx, event),
            payload: { ...(event.payload ?? {}), ...extra },
            revision,
            time,
            client: ids.client,
            operation_id: ids.operationId,
          });
        const result = await fn({
          tx,
          revision,
          time,
          nowMs,
          event: (event) => bound(event, {}),
          terminal: async (event, value) => {
            pending++;
            pendingRow = await bound(
              event,
              journaled ? { [TERMINAL_PAYLOAD_KEY]: { result: value } } : {},
            );
            return pendingRow;
          },
        });
        terminals += pending;
        if (pendingRow !== undefined) lastTerminal = pendingRow;
        return result;
      });
    },
  };
}

const sessionBranchQuery = new PreparedQuery<{ id: string }, { branch: string | null }>((db, $) =>
  db.selectFrom("sessions").select("branch").where("id", "=", $("id")),
);

/**
 * The branch an event is written on: the one it names, else its session's (an event bound to a
 * session is on the session's branch, docs/design/work-branches.md R6), else main.
 */
async function eventBranch(tx: LedgerTx, event: DomainEvent): Promise<string | null> {
  if (event.branch !== undefined) return event.branch;
  if (event.session === undefined || event.session === null) return null;
  const row = await sessionBranchQuery.first(tx, { id: event.session });
  return row?.branch ?? null;
}

/** True when a stored event is an operation's terminal event. */
export function isTerminalEvent(event: Pick<EventTable, "payload">): boolean {
  try {
    const payload = JSON.parse(event.payload) as Record<string, unknown>;
    const marker = payload[TERMINAL_PAYLOAD_KEY];
    return marker !== null && typeof marker === "object";
  } catch {
    return false;
  }
}
