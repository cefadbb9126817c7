/** What `awr doctor` reports for one object, and the one repair it suggests for it. */

/** One named repair, as `awr doctor repair ACTION ID` applies it (its `kind`). */
export type RepairAction =
  | { kind: "expire_claim"; claim_id: string }
  | { kind: "interrupt_session"; session_id: string }
  | { kind: "abandon_checkpoint"; attempt_id: string }
  | { kind: "clear_invalid_branch"; branch_id: string };

export type FindingSeverity = "error" | "warning" | "info";

export interface DoctorFinding {
  code: string;
  severity: FindingSeverity;
  object_kind: string;
  object_id: string;
  message: string;
  repair: RepairAction | null;
}

export function finding(
  code: string,
  severity: FindingSeverity,
  objectKind: string,
  objectId: string,
  message: string,
  repair: RepairAction | null = null,
): DoctorFinding {
  return { code, severity, object_kind: objectKind, object_id: objectId, message, repair };
}
