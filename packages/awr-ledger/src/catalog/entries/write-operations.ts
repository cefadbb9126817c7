import { LedgerError } from "../../errors.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import { EVIDENCE_LEVELS } from "../../sources/adapters/yaml-work-item.js";
import type { EventAppendInput } from "../../work/event-append.js";
import type { EvidenceRecordInput } from "../../work/evidence-record.js";
import type { WorkTransitionInput } from "../../work/work-transition.js";
import type { CliCommand } from "../cli-spec.js";
import { eventPayloadSchema } from "../event-payload.js";
import {
  about,
  branch,
  choice,
  id,
  nullable,
  object,
  SESSION_SELECTOR,
  strings,
  text,
} from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { operation } from "../operation.js";
import { conversationId, expectedRevision, sessionId, sha, sourceSha } from "../shared-fields.js";

export const WORK_ACTION_NAMES = [
  "progress",
  "block",
  "unblock",
  "cancel",
  "reopen",
  "complete",
] as const;

export const EVIDENCE_LEVEL_NAMES = [...EVIDENCE_LEVELS, "unknown"] as const;

const levels = () => choice(EVIDENCE_LEVEL_NAMES);

const completion = () =>
  about(
    "complete: evidence for every acceptance criterion.",
    nullable(
      object(
        {
          version: { type: "integer", const: 1 },
          source_sha: sha(),
          minimum_level: levels(),
          acceptance: {
            type: "array",
            maxItems: LIMITS.listItems,
            items: object({ criterion: text(), evidence: strings() }, ["criterion", "evidence"]),
          },
          required_evidence: strings(),
        },
        ["version", "source_sha", "acceptance"],
      ),
    ),
  );

const ACTION_SUMMARY: Record<(typeof WORK_ACTION_NAMES)[number], string> = {
  progress: "start or continue a work item (needs the session's claim and its dependencies)",
  block: "mark a work item blocked; needs --blocker",
  unblock: "lift a block (needs the dependencies completed)",
  cancel: "cancel a work item (releases the session's claim)",
  reopen: "reopen a completed or cancelled work item as planned",
  complete:
    "complete a work item with --input FILE mapping every acceptance criterion to evidence (releases the claim)",
};

const transitionCommands: CliCommand[] = WORK_ACTION_NAMES.map((action) => ({
  path: ["work", action],
  summary: ACTION_SUMMARY[action],
  operands: [{ field: "work", name: "WORK" }],
  fixed: { action },
  flags: {
    ...(action === "complete" ? { blocker: null, completion: "--input" } : { completion: null }),
    // The original's transition commands have no view flag; the tool's argument is MCP's.
    response_view: null,
  },
  ...(action === "complete"
    ? { files: { completion: { base: "cwd", maxBytes: LIMITS.completionFileBytes } } }
    : {}),
}));

export const workTransitionOperation = operation({
  tool: "awr_work_transition",
  kind: "write",
  freshness: "runtime",
  destructive: true,
  description:
    "Moves a work item: progress, block (blocker), unblock, cancel, reopen, or complete (completion maps every acceptance criterion to recorded evidence at source_sha). Writes the YAML source. progress/block/complete need your session's claim. Errors: ClaimConflict, DependencyBlocked, EvidenceMissing, InvalidTransition (wrong state or a pending wait), SourceConflict (the file changed: reindex), RevisionConflict.",
  input: object(
    {
      work: about("Work item key.", id()),
      action: about("The move to make.", choice(WORK_ACTION_NAMES)),
      session: sessionId(),
      conversation: nullable(conversationId()),
      expected_revision: expectedRevision(),
      reason: about("Why, in a sentence.", { ...text(), minLength: 1 }),
      next_action: about("The new next action.", nullable(text())),
      summary: about("A new summary.", nullable(text())),
      blocker: about("block: what it waits on.", nullable(text())),
      completion: completion(),
      response_view: about("summary needs request_id.", {
        ...choice(["full", "summary"]),
        default: "full",
      }),
    },
    ["work", "action", "expected_revision", "reason"],
    SESSION_SELECTOR,
  ),
  run: async (
    host,
    { response_view, ...input }: WorkTransitionInput & { response_view?: "full" | "summary" },
    caller,
    options,
  ) => {
    // The view is presentation only: it is not part of the journaled request (a retry with
    // another view replays the same write) and never changes what the transition does.
    const summary = response_view === "summary";
    if (summary && input.request_id === undefined) {
      throw new LedgerError(
        "InvalidInput",
        "response_view summary needs a request_id, so that the full answer stays readable with awr_operation_get",
        { field: "request_id" },
      );
    }
    const [{ workTransition }, { summarizeTransition }] = await Promise.all([
      loadInOrder(() => import("../../work/work-transition.js")),
      import("../../work/response-view.js"),
    ]);
    const answer = await workTransition(host.runtime, input, caller, options);
    if (!summary || input.request_id === undefined) return answer;
    // Typed as the full answer, the default view's: a caller asking for the summary reads
    // its `response_view` to know which fields it left out.
    return summarizeTransition(answer, input.request_id) as typeof answer;
  },
  cli: transitionCommands,
});

export const eventAppendOperation = operation({
  tool: "awr_event_append",
  kind: "write",
  freshness: "refresh",
  description:
    "Appends a free-form event (an observation, a note) to the project's history. Lifecycle types (work.completed, session.started, claim.*, checkpoint.*, ...) are InvalidInput: use their tools. The payload is data, never executed.",
  input: object(
    {
      expected_revision: expectedRevision(),
      work: about("Work key it concerns.", nullable(id())),
      session: nullable(sessionId()),
      conversation: nullable(conversationId()),
      branch: branch(),
      event_type: about("e.g. note.decision.", {
        type: "string",
        minLength: 1,
        maxLength: LIMITS.eventTypeBytes,
        pattern: "^[A-Za-z0-9_.:-]+$",
      }),
      importance: about("Default normal.", {
        type: ["string", "null"],
        enum: ["low", "normal", "high", "critical", null],
      }),
      summary: about("One line.", {
        type: "string",
        minLength: 1,
        maxLength: LIMITS.eventSummaryBytes,
      }),
      payload: eventPayloadSchema(),
    },
    ["expected_revision", "event_type", "summary"],
  ),
  run: async (host, input: EventAppendInput, caller, options) =>
    (await loadInOrder(() => import("../../work/event-append.js"))).eventAppend(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["event", "append"],
      summary: "append a free-form event (lifecycle types such as work.completed are refused)",
      operands: [{ field: "event_type", name: "TYPE", optional: true }],
      flags: { event_type: "--type" },
      files: { payload: { base: "project", maxBytes: LIMITS.inputFileBytes } },
    },
  ],
});

export const evidenceRecordOperation = operation({
  tool: "awr_evidence_record",
  kind: "write",
  freshness: "refresh",
  description:
    "Records evidence (a test run, a review, a report) with its level and scope, for completing work. The bindings are your assertions; command is recorded, never run. An external_key already recorded is SourceConflict.",
  input: object(
    {
      expected_revision: expectedRevision(),
      external_key: about("Your unique key for it.", id()),
      work: about("Work key it proves.", nullable(id())),
      evidence_type: about("e.g. test, review.", id()),
      level: about("How far it proves the work.", levels()),
      summary: about("What it shows.", text()),
      locator: about("Where it is (path, URL).", text()),
      sha256: about(
        "sha256 of the report.",
        nullable({ type: "string", pattern: "^[0-9a-fA-F]{64}$" }),
      ),
      source_sha: sourceSha(),
      command: about("What produced it; never run.", nullable(text())),
      scope: about("What it covers.", { ...strings(), minItems: 1 }),
      branch: branch(),
      verified_at: about("When verified, ms since epoch.", {
        type: ["integer", "null"],
        minimum: 0,
        maximum: 8_640_000_000_000_000,
      }),
    },
    ["expected_revision", "external_key", "evidence_type", "level", "summary", "locator", "scope"],
  ),
  run: async (host, input: EvidenceRecordInput, caller, options) =>
    (await loadInOrder(() => import("../../work/evidence-record.js"))).evidenceRecord(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["evidence", "add"],
      summary: "record evidence from --input FILE (or flags); the command is recorded, never run",
      operands: [{ field: "external_key", name: "KEY", optional: true }],
      flags: { evidence_type: "--type" },
      inputFile: {
        flag: "--input",
        rename: { work_item_key: "work", branch_id: "branch" },
        base: "project",
        maxBytes: LIMITS.inputFileBytes,
      },
    },
  ],
});
