import type { Kysely } from "kysely";
import { loadInOrder } from "../../internal/ordered-import.js";
import type { CompletionPrepareInput } from "../../management/completion-prepare.js";
import type { ManagementObservation } from "../../management/management-decision.js";
import type { WorkAssessInput } from "../../management/work-assess.js";
import type { WorkManageInput } from "../../management/work-manage.js";
import type { LedgerSchema } from "../../storage/schema.js";
import { about, bounded, branch, id, nullable, object } from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { type OperationHost, type OperationOptions, operation } from "../operation.js";
import { expectedRevision, sessionId, sha } from "../shared-fields.js";
import { EVIDENCE_LEVEL_NAMES } from "./write-operations.js";

/** Runs a read of the projection at one consistent revision. */
function readAt<T>(
  host: OperationHost,
  options: OperationOptions,
  fn: (db: Kysely<LedgerSchema>, revision: number) => Promise<T>,
): Promise<T> {
  const { store } = host.runtime;
  return store.read(async (db) => fn(db, await store.currentRevision(db)), options);
}

const fact = (description: string) => about(description, { type: ["boolean", "null"] });
const count = (description: string, min: number, max: number) =>
  about(description, nullable(bounded({ min, max })));

/** The host's observation: only observed_at and note are required; the rest may be unknown. */
const observation = () =>
  about(
    "What you observed; null facts stay unknown.",
    object(
      {
        observed_at: about(
          "When, ms since epoch.",
          bounded({ min: 0, max: 8_640_000_000_000_000 }),
        ),
        note: about("Why you say so.", { type: "string", maxLength: LIMITS.managementNoteBytes }),
        single_outcome: fact("One outcome only?"),
        bounded_scope: fact("Scope needs no planning?"),
        single_executor: fact("No handoff or collaboration?"),
        no_deferred_wait: fact("No wait on someone later?"),
        independently_schedulable_units: count(
          "Units that could run apart.",
          1,
          LIMITS.managementCountMax,
        ),
        plan_valid: fact("Plan still valid?"),
        outcome_known: fact("Last outcome known?"),
        active_elapsed_ms: count("Active time so far, ms.", 0, LIMITS.managementElapsedMsMax),
        completed_rework_cycles: count("Rework cycles done.", 0, LIMITS.managementCountMax),
      },
      ["observed_at", "note"],
    ),
  );

export const workAssessOperation = operation({
  tool: "awr_work_assess",
  kind: "read",
  freshness: "sources",
  description:
    "How intensely a work item needs managing (lightweight, continuous or undetermined), with reasons, unknown facts, required actions and contract_fingerprint. Changes nothing; never admits execution or completion.",
  input: object({ work: about("Work item key.", id()), branch: branch() }, ["work"]),
  run: async (host, input: WorkAssessInput, _caller, options) => {
    const { workAssess } = await loadInOrder(() => import("../../management/work-assess.js"));
    return readAt(host, options, (db, revision) => workAssess(db, input, revision));
  },
  cli: [
    {
      path: ["work", "assess"],
      summary: "what managing a work item requires; changes no execution or completion policy",
      operands: [{ field: "work", name: "WORK" }],
    },
  ],
});

export const workManageOperation = operation({
  tool: "awr_work_manage",
  kind: "write",
  freshness: "refresh",
  description:
    "Records your observations of a work item and the assessment they give, bound to your session of it and to contract_fingerprint from awr_work_assess. Writes no source. A request_key reused with other input is SourceConflict.",
  input: object(
    {
      work: about("Work item key.", id()),
      session: sessionId(),
      expected_revision: expectedRevision(),
      request_key: about("Your stable key for this record.", {
        type: "string",
        maxLength: LIMITS.managementRequestKeyBytes,
      }),
      contract_fingerprint: about("From awr_work_assess.", id()),
      observation: observation(),
    },
    ["work", "session", "expected_revision", "request_key", "contract_fingerprint", "observation"],
  ),
  run: async (host, input: WorkManageInput, caller, options) =>
    (await loadInOrder(() => import("../../management/work-manage.js"))).workManage(
      host.runtime,
      { ...input, observation: input.observation as ManagementObservation },
      caller,
      options,
    ),
  cli: [
    {
      path: ["work", "manage"],
      summary: "record observations of a work item from --input FILE (the awr_work_manage input)",
      flags: { observation: null },
      inputFile: {
        flag: "--input",
        rename: {},
        base: "project",
        maxBytes: LIMITS.completionFileBytes,
      },
    },
  ],
});

export const completionPrepareOperation = operation({
  tool: "awr_completion_prepare",
  kind: "read",
  freshness: "sources",
  description:
    "Checks a completion report file against the work's current acceptance criteria and derives the evidence record (with sha256) and completion mapping to use. Runs nothing, records nothing, completes nothing; level is your assertion.",
  input: object(
    {
      work: about("Work item key.", id()),
      report: about("Report path in the project.", { type: "string", maxLength: LIMITS.itemBytes }),
      evidence_key: about("Key to record it under.", {
        type: "string",
        maxLength: LIMITS.evidenceKeyBytes,
      }),
      source_sha: about("Full commit SHA it was verified at.", sha()),
      level: about("Level you assert it proves.", {
        type: "string",
        enum: EVIDENCE_LEVEL_NAMES,
      }),
      branch: branch(),
    },
    ["work", "report", "evidence_key", "source_sha", "level"],
  ),
  run: async (host, input: CompletionPrepareInput, _caller, options) => {
    const { completionPrepare } = await loadInOrder(
      () => import("../../management/completion-prepare.js"),
    );
    return readAt(host, options, (db, revision) =>
      completionPrepare(db, host.runtime.root, input, revision, host.runtime.now()),
    );
  },
  cli: [
    {
      path: ["work", "prepare-completion"],
      summary: "check a completion report and derive its evidence record; records nothing",
      operands: [{ field: "work", name: "WORK" }],
      defaults: { level: "locally_verified" },
    },
  ],
});
