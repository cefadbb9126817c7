import type { RuntimeCaller } from "../core/runtime-context.js";
import { ulid } from "../internal/ulid.js";
import type { CommitUnit, DomainEvent } from "../journal/operation-scope.js";
import { type EventRecord, eventRecord } from "../journal/operation-views.js";

/**
 * A terminal event named before it is stored, and the record a result shows for it: the result
 * is computed before the commit appends the event, so both come from the same fields.
 */
export function pendingEvent(
  unit: CommitUnit,
  caller: RuntimeCaller,
  event: DomainEvent,
): { event: DomainEvent & { id: string }; record: EventRecord } {
  const named = { ...event, id: event.id ?? ulid() };
  const record = eventRecord({
    id: named.id,
    revision: unit.revision,
    type: named.type,
    work: named.work ?? null,
    session: named.session ?? null,
    client: caller.client,
    operation_id: null,
    summary: named.summary ?? null,
    payload: JSON.stringify(named.payload ?? {}),
    time: unit.time,
    importance: named.importance ?? "normal",
    branch: named.branch ?? null,
  });
  return { event: named, record };
}
