import { LIMITS } from "../../core/limits.js";
import type { DoctorRepairInput } from "../../doctor/doctor-repair.js";
import type { DoctorInput } from "../../doctor/doctor-report.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import type { CliCommand } from "../cli-spec.js";
import { choice, id, object, revision } from "../json-schema.js";
import { operation } from "../operation.js";

/**
 * `awr doctor` and `awr doctor repair …`: CLI-only operations, an operator's tools, so they
 * are never on tools/list (docs/design/work-branches.md, "awr doctor").
 */

export const doctorOperation = operation({
  tool: "awr_doctor",
  kind: "read",
  surface: "cli",
  // The doctor compares the sources with the index itself and answers in its own envelope.
  freshness: "scoped",
  description:
    "Inspects the ledger without changing anything: database integrity and schema, runtime state (sessions, claims, checkpoints, branches, journal) and sources; each finding names its severity and the one repair that applies, if any.",
  input: object({
    database: { type: "string", minLength: 1, maxLength: LIMITS.doctorPathBytes },
    database_only: { type: "boolean", default: false },
    // The range is the implementation's to refuse, with its own message (1..1 GiB).
    max_bytes: { type: "integer" },
  }),
  run: async (host, input: DoctorInput) =>
    (await loadInOrder(() => import("../../doctor/doctor-report.js"))).diagnose(
      host.runtime,
      host.project,
      input,
    ),
  cli: [
    {
      path: ["doctor"],
      summary:
        "diagnose the ledger (read only): database, runtime state and sources; fails when a finding needs attention",
      view: "doctor",
    },
  ],
});

/** One `awr doctor repair ACTION ID` command per repair, the action fixed. */
const repairCommand = (action: string, operand: string, summary: string): CliCommand => ({
  path: ["doctor", "repair", action.replace(/_/g, "-")],
  summary,
  operands: [{ field: "id", name: operand }],
  flags: { id: null },
  fixed: { action },
  view: "doctor-repair",
});

export const doctorRepairOperation = operation({
  tool: "awr_doctor_repair",
  kind: "write",
  surface: "cli",
  freshness: "runtime",
  description:
    "Applies exactly one named doctor repair to one object, only when the doctor's rule for it holds inside the write.",
  input: object(
    {
      action: choice([
        "expire_claim",
        "interrupt_session",
        "abandon_checkpoint",
        "clear_invalid_branch",
      ]),
      id: id(),
      reason: { type: "string", maxLength: LIMITS.doctorReasonBytes },
      expected_revision: revision(),
    },
    ["action", "id", "reason", "expected_revision"],
  ),
  run: async (host, input: DoctorRepairInput, caller, options) =>
    (await loadInOrder(() => import("../../doctor/doctor-repair.js"))).doctorRepair(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    repairCommand(
      "expire_claim",
      "CLAIM",
      "mark an active claim expired, only if its deadline has really passed",
    ),
    repairCommand(
      "interrupt_session",
      "SESSION",
      "end an active session whose process you know is gone, and end its claims",
    ),
    repairCommand(
      "abandon_checkpoint",
      "ATTEMPT",
      "close an unfinished checkpoint save attempt (none exist here: checkpoints save in one step)",
    ),
    repairCommand(
      "clear_invalid_branch",
      "BRANCH",
      "select main again when the selected branch is missing or closed",
    ),
  ],
});
