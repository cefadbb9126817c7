import { isReservedEventType } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import { type EventRecord, eventRecord } from "../journal/operation-views.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { resolveLinks } from "../runtime/runtime-lookup.js";

export const EVENT_IMPORTANCE = ["low", "normal", "high", "critical"] as const;
export type EventImportance = (typeof EVENT_IMPORTANCE)[number];

export interface EventAppendInput extends WriteFields {
  event_type: string;
  summary: string;
  importance?: EventImportance | undefined;
  work?: string | undefined;
  session?: string | undefined;
  conversation?: string | undefined;
  /** Omitted or null: the session's branch, or without a session the selected default. */
  branch?: string | null | undefined;
  /** Observations only (the catalog's payload schema); never executed. */
  payload?: Record<string, unknown> | undefined;
}

export interface EventAppendResult {
  event: EventRecord;
}

/**
 * awr_event_append: one free-form event. A reserved type (a lifecycle event or anything under
 * a domain prefix, see core/event-types.ts) is InvalidInput: it must come from its domain
 * operation, so no client can forge a receipt. A payload `source_id` must name a known source
 * (NotFound otherwise), so no event is stored with a dangling one.
 */
export async function eventAppend(
  ctx: RuntimeContext,
  input: EventAppendInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<EventAppendResult & WriteReceipt> {
  if (isReservedEventType(input.event_type)) {
    throw new LedgerError(
      "InvalidInput",
      `event type "${input.event_type}" is reserved for the ledger's own operations (use the tool that performs it); choose a free-form type such as note.${input.event_type.split(".").pop() ?? "added"}`,
      { field: "event_type", event_type: input.event_type },
    );
  }
  if (input.summary.trim() === "") {
    throw new LedgerError("InvalidInput", "summary must contain text, not only spaces", {
      field: "summary",
    });
  }
  const importance = input.importance ?? "normal";
  const payload = input.payload ?? {};
  refuseUnknownSource(payload);
  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check: (db) => resolveLinks(db, caller, input.work, input, input.branch),
      apply: async (unit, linked) => {
        const event = {
          id: ulid(),
          type: input.event_type,
          work: linked.work,
          session: linked.session,
          branch: linked.branch,
          summary: input.summary,
          importance,
          payload,
        };
        const stored = {
          ...event,
          revision: unit.revision,
          client: caller.client,
          operation_id: null,
          payload: JSON.stringify(payload),
          time: unit.time,
        };
        return { result: { event: eventRecord(stored) }, event };
      },
    },
    options,
  );
}

/**
 * The payload's `source_id` (a ULID, as the schema says) must name a source of this project. This
 * ledger names its sources by their path and gives them no ULID, so no `source_id` names one:
 * the event is refused before anything is written, rather than stored with a reference nothing
 * resolves. The message names the field, never the value.
 */
function refuseUnknownSource(payload: Record<string, unknown>): void {
  if (payload["source_id"] === undefined || payload["source_id"] === null) return;
  throw new LedgerError(
    "NotFound",
    "payload.source_id names no source of this project: its sources have no ids (the manifest's [[sources]] name them by path); leave source_id out, or put the source's path in payload.detail",
    { field: "payload.source_id" },
  );
}
