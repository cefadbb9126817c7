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

const fact = () => ({ type: ["boolean", "null"] }) as const;
const count = (min: number, max: number) => nullable(bounded({ min, max }));

/** The host's observation: only observed_at and note are required; the rest may be unknown. */
const observation = () =>
  about(
    "observed_at (ms), note, and the facts you know (null: unknown).",
    object(
      {
        observed_at: bounded({ min: 0, max: 8_640_000_000_000_000 }),
        note: { type: "string", maxLength: LIMITS.managementNoteBytes },
        single_outcome: fact(),
        bounded_scope: fact(),
        single_executor: fact(),
        no_deferred_wait: fact(),
        independently_schedulable_units: count(1, LIMITS.managementCountMax),
        plan_valid: fact(),
        outcome_known: fact(),
        active_elapsed_ms: count(0, LIMITS.managementElapsedMsMax),
        completed_rework_cycles: count(0, LIMITS.managementCountMax),
      },
      ["observed_at", "note"],
    ),
  );

export const workAssessOperation = operation({
  tool: "awr_work_assess",
  kind: "read",
  freshness: "sources",
  description:
    "How much managing a work item needs (lightweight, continuous, undetermined): reasons, unknown facts, required actions, contract_fingerprint. Admits nothing.",
  input: object({ work: about("Work item key.", id()), branch: branch() }, ["work"]),
  run: async (host, input: WorkAssessInput, _caller, options) => {
    const { workAssess } = await loadInOrder(() => import("../../management/work-assess.js"));
    // The answer names the revision it was read at, as every read of the original does.
    return readAt(host, options, async (db, revision) => ({
      ...(await workAssess(db, input, revision)),
      project_revision: revision,
    }));
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
    "Records your observations of a work item and their assessment, from your session of it, at contract_fingerprint (awr_work_assess). Writes no source.",
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
    "Checks a report file covers the work's acceptance; derives its evidence record (sha256) and completion mapping. Runs, records, completes nothing.",
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
    return readAt(host, options, async (db, revision) => ({
      ...(await completionPrepare(db, host.runtime.root, input, revision, host.runtime.now())),
      project_revision: revision,
    }));
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
