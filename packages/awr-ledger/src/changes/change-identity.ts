import { createHash } from "node:crypto";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { canonicalJson } from "../journal/fingerprint.js";

/** The change kinds a reviewed source change may have, as the interface names them. */
export const CHANGE_KINDS = ["create", "batch", "edit", "work_edit"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * Who owns a source change: the project, the authenticated client (stdio has one local client;
 * the shared service passes the registry's client id), the change kind and the caller's own
 * request_id. Two clients choosing the same request_id get different keys, so neither can apply,
 * read or recover the other's change.
 */
export interface ChangeIdentity {
  project_id: string;
  client: string;
  kind: ChangeKind;
  request_id: string;
  /** The journal's key: a digest of the four, never the request_id alone. */
  request_key: string;
}

const CONTROL = /\p{Cc}/u;

/** SHA-256 (hex) of the canonical JSON of `value`. */
export function digest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

export function isChangeKind(value: unknown): value is ChangeKind {
  return typeof value === "string" && (CHANGE_KINDS as readonly string[]).includes(value);
}

/**
 * The identity of a change, refused with InvalidInput unless the kind is one of CHANGE_KINDS and
 * the request_id is 1..256 bytes, not blank, with no control character.
 */
export function changeIdentity(
  projectId: string,
  client: string,
  kind: unknown,
  requestId: unknown,
): ChangeIdentity {
  if (
    !isChangeKind(kind) ||
    typeof requestId !== "string" ||
    requestId.trim() === "" ||
    Buffer.byteLength(requestId) > LIMITS.changeRequestIdBytes ||
    CONTROL.test(requestId)
  ) {
    throw new LedgerError(
      "InvalidInput",
      `A source change needs a kind (${CHANGE_KINDS.join(", ")}) and a stable request_id of 1..${LIMITS.changeRequestIdBytes} bytes without control characters; nothing was read or written.`,
      { kind: typeof kind === "string" ? kind : null },
    );
  }
  const request_key = `source-change-${digest([projectId, client, kind, requestId])}`;
  return { project_id: projectId, client, kind, request_id: requestId, request_key };
}

/** The change's reason: 1..4096 bytes, not blank (InvalidInput otherwise). */
export function changeReason(reason: unknown): string {
  if (
    typeof reason !== "string" ||
    reason.trim() === "" ||
    Buffer.byteLength(reason) > LIMITS.changeReasonBytes
  ) {
    throw new LedgerError(
      "InvalidInput",
      `A source change needs a reason of 1..${LIMITS.changeReasonBytes} bytes saying why; nothing was read or written.`,
    );
  }
  return reason;
}
