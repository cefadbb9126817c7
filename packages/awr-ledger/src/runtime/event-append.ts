import { FREE_EVENT_TYPE_PATTERN, isReservedEventType } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { canonicalJson } from "../journal/fingerprint.js";
import { TERMINAL_PAYLOAD_KEY } from "../journal/operation-scope.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "./checked-write.js";
import { asFields, optObject, optText, text } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { resolveLinks } from "./runtime-lookup.js";

export interface EventAppendInput {
  type: string;
  work?: string;
  session?: string;
  conversation?: string;
  summary?: string;
  payload?: Record<string, unknown>;
  expected_revision: number;
  request_id?: string;
}

export interface EventAppendResult {
  /** The appended event; its id and seq are in the result's `terminal_event`. */
  event: {
    type: string;
    work: string | null;
    session: string | null;
    summary: string | null;
    payload: Record<string, unknown>;
    revision: number;
    time: string;
  };
}

const MAX_PAYLOAD_BYTES = 65_536;

/**
 * awr_event_append: a free-form event. Reserved types (the ledger's own, or anything under
 * mcp./session./work./claim./checkpoint./evidence.) are refused with RuleViolation, so no
 * client can forge a receipt; payload keys starting with `awr_` are the ledger's too.
 */
export async function eventAppend(
  ctx: RuntimeContext,
  input: EventAppendInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<EventAppendResult & WriteReceipt> {
  const fields = asFields(input, [
    "type",
    "work",
    "summary",
    "payload",
    ...SESSION_REF_FIELDS,
    ...WRITE_FIELDS,
  ]);
  const write = readWriteFields(fields);
  const type = text(fields, "type", { max: 128 });
  if (isReservedEventType(type)) {
    throw new LedgerError(
      "RuleViolation",
      `event type "${type}" is reserved for the ledger; use a free-form type such as note.${type.split(".").pop() ?? "added"}`,
      { type },
    );
  }
  if (!FREE_EVENT_TYPE_PATTERN.test(type)) {
    throw new LedgerError(
      "InvalidInput",
      `event type "${type}" must be dotted lowercase words, e.g. build.failed`,
      { field: "type" },
    );
  }
  const workRef = optText(fields, "work", { max: 256 });
  const summary = optText(fields, "summary", { max: 4096 });
  const payload = optObject(fields, "payload") ?? {};
  if (Buffer.byteLength(canonicalJson(payload), "utf8") > MAX_PAYLOAD_BYTES) {
    throw new LedgerError("InvalidInput", `payload is over ${MAX_PAYLOAD_BYTES} bytes`, {
      field: "payload",
    });
  }
  const ledgerKeys = Object.keys(payload).filter((key) => key.startsWith("awr_"));
  if (ledgerKeys.length > 0 || TERMINAL_PAYLOAD_KEY in payload) {
    throw new LedgerError(
      "InvalidInput",
      `payload keys starting with awr_ are reserved: ${ledgerKeys.join(", ")}`,
      {
        field: "payload",
      },
    );
  }
  const ref = readSessionRef(fields);
  return runCheckedWrite(
    ctx,
    {
      tool: "awr_event_append",
      input: fields,
      write,
      caller,
      check: (db) => resolveLinks(db, caller, workRef, ref),
      apply: async (unit, linked) => {
        const event = {
          type,
          work: linked.work,
          session: linked.session,
          summary: summary ?? null,
          payload,
        };
        return { result: { event: { ...event, revision: unit.revision, time: unit.time } }, event };
      },
    },
    options,
  );
}
