import { z } from "zod";
import {
  EVIDENCE_LEVELS,
  id,
  label,
  limit,
  list,
  revision,
  sessionAddress,
  text,
  WORK_ACTIONS,
} from "./fields.js";
import type { ProjectToolDefinition } from "./tool-definition.js";

const STALE =
  "SourceStale means planning files changed since the last index: call awr_source_reindex, then retry.";

export const WORK_TOOLS: readonly ProjectToolDefinition[] = [
  {
    name: "awr_project_status",
    title: "Project status",
    kind: "read",
    method: "projectStatus",
    description: `Overview of the project: work counts by status, current work, ready and blocked counts, the next action and organisation gaps, plus project_revision. Call it first in a conversation to orient yourself and to learn the revision your first write must send. ${STALE}`,
    shape: {},
  },
  {
    name: "awr_work_ready",
    title: "Ready work",
    kind: "read",
    method: "workReady",
    description: `Work items you could start now (status ready, no active claim, required dependencies completed), with diagnostics and the active claims. Call it to choose what to work on, then awr_session_start with claim: true. ${STALE}`,
    shape: { limit: limit().optional() },
  },
  {
    name: "awr_work_get",
    title: "Work item",
    kind: "read",
    method: "workGet",
    description: `One work item in full: acceptance criteria, dependencies with their states, decisions and recorded evidence. Call it before changing an item. NotFound: check the key with awr_search or awr_work_ready. ${STALE}`,
    shape: { work: id("Work item key, e.g. INVOICE-001.") },
  },
  {
    name: "awr_context_compile",
    title: "Compile context",
    kind: "read",
    method: "contextCompile",
    description: `Compiles a bounded, deterministic context packet (rendered_context, context_hash, token_estimate, completeness) for a work item or session: goals, rules, decisions, dependencies, evidence and recent events. Call it at the start of a turn and after a reply to a wait. Give session/conversation for your session, or detached: true for a read without one; checkpoint or after_revision (not both) limit it to what changed. BudgetExceeded {required, budget}: retry with at least \`required\` tokens. ContextIncomplete: the required facts are missing; read the message. ${STALE}`,
    shape: {
      work: id("Work item key.").optional(),
      ...sessionAddress,
      detached: z.boolean().describe("Compile without a session.").optional(),
      budget: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .describe("Token budget, 1..100000 (default 5000).")
        .optional(),
      intent: text("What you are about to do; focuses the packet.").optional(),
      paths: list("File paths you will touch.").optional(),
      tags: list("Tags to focus on.").optional(),
      goals: list("Goal keys to include, e.g. goal#checkout.").optional(),
      checkpoint: id("Only what changed since this checkpoint id.").optional(),
      after_revision: revision("Only what changed after this revision.").optional(),
    },
  },
  {
    name: "awr_search",
    title: "Search",
    kind: "read",
    method: "search",
    description: `Full-text search over work items, goals, plans, rules, decisions, evidence and events (never event payloads). Call it to find a key you do not know. ${STALE}`,
    shape: {
      query: z.string().min(1).max(1024).describe("Words to search for."),
      limit: limit().optional(),
    },
  },
  {
    name: "awr_work_transition",
    title: "Change work state",
    kind: "write",
    method: "workTransition",
    destructive: true,
    description:
      "Moves a work item: progress, block (needs blocker), unblock, cancel, reopen, or complete (needs completion mapping every acceptance criterion to recorded evidence; releases your claim). Writes the new status back into the YAML source. progress, block and complete need your session's active claim. Errors: RevisionConflict (read again, reconsider), ClaimConflict (someone else holds it), DependencyBlocked (finish dependencies first), EvidenceMissing (record evidence with awr_evidence_record), InvalidTransition (wrong state, or a pending wait: get the reply first), SourceConflict (the file changed; reindex and retry).",
    shape: {
      work: id("Work item key."),
      action: z
        .enum(WORK_ACTIONS)
        .describe("progress | block | unblock | cancel | reopen | complete"),
      ...sessionAddress,
      next_action: text("The next concrete step, written back to the source.").optional(),
      blocker: text("What blocks the work (required for block).").optional(),
      reason: text("Why (recorded in the event).").optional(),
      completion: z
        .array(
          z
            .object({
              criterion: z
                .string()
                .min(1)
                .max(4096)
                .describe("Acceptance criterion id or exact text."),
              evidence: z
                .array(z.string().min(1).max(256))
                .min(1)
                .max(64)
                .describe("external_keys of recorded evidence."),
            })
            .strict(),
        )
        .max(256)
        .describe("For complete: every acceptance criterion with its evidence.")
        .optional(),
    },
  },
  {
    name: "awr_event_append",
    title: "Append event",
    kind: "write",
    method: "eventAppend",
    description:
      "Appends a free-form event (a note, an observation) to the project's immutable history. Reserved domain types (session.*, work.*, claim.*, evidence.*, checkpoint.*, mcp.*) are refused with InvalidInput: use the dedicated tool instead. RevisionConflict: read again and retry with the current revision.",
    shape: {
      type: label("Event type, e.g. note or review.comment."),
      work: id("Work item key the event is about.").optional(),
      ...sessionAddress,
      summary: text("One-line human summary.").optional(),
      payload: z.record(z.string(), z.unknown()).describe("Structured detail.").optional(),
    },
  },
  {
    name: "awr_evidence_record",
    title: "Record evidence",
    kind: "write",
    method: "evidenceRecord",
    description:
      "Records evidence (a test run, a review, a deployment) with its level, so that work can be completed against its acceptance criteria. `command` is stored, never executed. Call it after verifying something, before completing the work. Errors: RevisionConflict (read again), InvalidInput (check level and fields), SourceConflict (external_key already used for different evidence).",
    shape: {
      external_key: label("Your stable key for this evidence, referenced by completion."),
      evidence_type: label("Kind of evidence, e.g. test, review, ci, deploy."),
      level: z.enum(EVIDENCE_LEVELS).describe(`One of ${EVIDENCE_LEVELS.join(", ")}.`),
      summary: text("What was verified and the outcome."),
      work: id("Work item key it supports.").optional(),
      locator: z.string().max(2048).describe("Where to find it (URL, path, job id).").optional(),
      scope: list("Acceptance criteria or paths it covers.").optional(),
      sha256: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/)
        .describe("Digest of the artifact.")
        .optional(),
      command: z
        .string()
        .max(8192)
        .describe("The command that produced it (recorded only).")
        .optional(),
      verified_at: z.string().max(64).describe("ISO 8601 time of verification.").optional(),
      ...sessionAddress,
    },
  },
];
