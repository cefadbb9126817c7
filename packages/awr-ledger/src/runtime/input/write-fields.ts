import type { WriteFields } from "../../core/runtime-context.js";
import { LedgerError } from "../../errors.js";
import { type Fields, optInt, optText } from "./fields.js";

/** The arguments every write takes besides its own (AWR.md section 4). */
export const WRITE_FIELDS = ["expected_revision", "request_id"] as const;

export function readWriteFields(fields: Fields): WriteFields {
  const expected = optInt(fields, "expected_revision", { min: 0 });
  if (expected === undefined) {
    throw new LedgerError(
      "InvalidInput",
      "expected_revision is required: pass the project_revision of your last read",
      { field: "expected_revision" },
    );
  }
  const requestId = optText(fields, "request_id", { min: 1, max: 256 });
  return requestId === undefined
    ? { expected_revision: expected }
    : { expected_revision: expected, request_id: requestId };
}

/** Session addressing: `session` (id) or `conversation` (bound per client). */
export interface SessionRef {
  session?: string;
  conversation?: string;
}

export const SESSION_REF_FIELDS = ["session", "conversation"] as const;

export function readSessionRef(fields: Fields): SessionRef {
  const ref: SessionRef = {};
  const session = optText(fields, "session", { max: 256 });
  const conversation = optText(fields, "conversation", { max: 256 });
  if (session !== undefined) ref.session = session;
  if (conversation !== undefined) ref.conversation = conversation;
  return ref;
}
