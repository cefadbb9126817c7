import { isLedgerError } from "../errors.js";
import { untilClosed } from "../internal/abort.js";
import { loadInOrder } from "../internal/ordered-import.js";
import type { SourceReindexInput } from "../projection/source-reindex.js";
import type { OperationGetInput } from "../runtime/operation-get.js";
import type { OperationRecoverInput } from "../runtime/operation-recover.js";
import type { SessionResumeInput } from "../runtime/session-resume.js";
import { about, choice, nullable, object, strings, ttlMs } from "./json-schema.js";
import { LIMITS } from "./limits.js";
import { type OperationHost, type OperationOptions, operation } from "./operation.js";
import { contextCompileOperation } from "./read-operations.js";
import {
  conversationId,
  expectedRevision,
  identityFields,
  requestId,
  sessionId,
  sourceSha,
} from "./shared-fields.js";

/** The request_id of the operation tools, which names an earlier write instead of this one. */
const LOOKED_UP = "The request_id of your earlier write.";

/**
 * The successor's context packet, compiled as awr_context_compile would after the resume: the
 * CLI refreshes the sources first, a tool call reads them as indexed. A packet that cannot be
 * compiled does not undo the resume; it is reported as `context_ready: false` with the error.
 */
async function successorContext(
  host: OperationHost,
  session: string,
  input: SessionResumeInput,
  caller: { client: string },
  options: OperationOptions,
): Promise<Record<string, unknown>> {
  try {
    await host.project?.ensureFresh({ refresh: options.refresh === true, client: caller.client });
    const context = await contextCompileOperation.run(
      host,
      {
        session,
        ...(input.budget === undefined ? {} : { budget: input.budget }),
        ...(input.paths === undefined ? {} : { paths: input.paths }),
        ...(input.tags === undefined ? {} : { tags: input.tags }),
        ...(input.goals === undefined ? {} : { goals: input.goals }),
        ...(input.source_sha === undefined ? {} : { source_sha: input.source_sha }),
      },
      caller,
      options,
    );
    return { context_ready: true, context };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return { context_ready: false, context: error.result ?? null, context_error: error.toJSON() };
  }
}

export const sessionResumeOperation = operation({
  tool: "awr_session_resume",
  kind: "write",
  freshness: "runtime",
  description:
    "Continues a session in a successor bound to conversation: it inherits the last checkpoint and, by claim (inherit|acquire|none), the claim; the answer carries the successor's compiled context. Refused while a wait is pending.",
  input: object(
    {
      session: about("The session to continue.", sessionId()),
      conversation: about("Conversation for the successor.", conversationId()),
      ...identityFields(),
      expected_revision: expectedRevision(),
      claim: about("The successor's claim.", {
        ...choice(["inherit", "acquire", "none"]),
        default: "inherit",
      }),
      ttl_ms: ttlMs(),
      budget: about("Token budget of its context.", {
        type: ["integer", "null"],
        minimum: LIMITS.budget.min,
        maximum: LIMITS.budget.max,
      }),
      paths: about("Paths you will touch; scope rules.", nullable(strings())),
      tags: about("Tags that scope rules.", nullable(strings())),
      goals: about("Goal keys; default: primary goals.", strings()),
      source_sha: sourceSha(),
    },
    ["session", "conversation", "agent", "provider", "model", "expected_revision"],
  ),
  run: async (host, input: SessionResumeInput, caller, options) => {
    const { sessionResume } = await loadInOrder(() => import("../runtime/session-resume.js"));
    const resumed = await sessionResume(host.runtime, input, caller, options);
    const context = await successorContext(
      host,
      resumed.resumed.session.id,
      input,
      caller,
      options,
    );
    return { ...resumed, ...context };
  },
  cli: [
    {
      path: ["session", "resume"],
      summary: "continue a session in a successor that inherits its checkpoint and claim",
      operands: [{ field: "session", name: "SESSION", optional: true }],
      flags: { claim: null, paths: "--path", tags: "--tag", goals: "--goal" },
      aliases: { "--from-session": "session" },
      switches: [
        {
          flag: "--claim",
          field: "claim",
          value: "acquire",
          description: "claim the work anew for the successor",
        },
        {
          flag: "--no-claim",
          field: "claim",
          value: "none",
          description: "release the predecessor's claims; the successor holds none",
        },
      ],
      generated: ["conversation"],
    },
  ],
});

export const operationGetOperation = operation({
  tool: "awr_operation_get",
  kind: "read",
  freshness: "runtime",
  description:
    "What became of one of your writes, by request_id: outcome recorded or unknown, its domain receipts, the next action. Call it after a timeout or a lost answer instead of guessing; never replay an unknown one.",
  input: object({ request_id: requestId(LOOKED_UP) }, ["request_id"]),
  run: async (host, input: OperationGetInput, caller, options) =>
    (await loadInOrder(() => import("../runtime/operation-get.js"))).operationGet(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["operation", "get"],
      summary: "what became of a write, by its request id: outcome, receipts, next action",
      operands: [{ field: "request_id", name: "REQUEST_ID" }],
    },
  ],
});

export const operationRecoverOperation = operation({
  tool: "awr_operation_recover",
  kind: "write",
  freshness: "runtime",
  description:
    "Settles a write whose outcome is unknown from its receipts, never running it again: one terminal receipt records it committed; none, once no worker holds it, not committed. Compile fresh context afterwards.",
  input: object({ request_id: requestId(LOOKED_UP), expected_revision: expectedRevision() }, [
    "request_id",
    "expected_revision",
  ]),
  run: async (host, input: OperationRecoverInput, caller, options) =>
    (await loadInOrder(() => import("../runtime/operation-recover.js"))).operationRecover(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["operation", "recover"],
      summary: "settle an unfinished write from its receipts (it never runs again)",
      operands: [{ field: "request_id", name: "REQUEST_ID" }],
    },
  ],
});

export const sourceReindexOperation = operation({
  tool: "awr_source_reindex",
  kind: "write",
  freshness: "runtime",
  description:
    "Re-reads the planning sources into the ledger after they change (the fix for SourceStale); unchanged sources are skipped and spend nothing. Never edits the files.",
  input: object({ expected_revision: expectedRevision() }, ["expected_revision"]),
  run: async (host, input: SourceReindexInput, caller, options) => {
    const { refuseHeldBack, sourceReindex } = await loadInOrder(
      () => import("../projection/source-reindex.js"),
    );
    const project = host.project;
    if (project === undefined) throw new Error("awr_source_reindex needs the project's sources");
    const result = await sourceReindex(
      host.runtime,
      { root: project.root, loadManifest: () => project.manifest(true) },
      input,
      caller,
      { ...options, signal: untilClosed(options.signal, project.closing) },
    );
    return refuseHeldBack({
      ...result,
      source_refresh_performed: true,
      source_write_performed: false,
    });
  },
  cli: [{ path: ["source", "reindex"], summary: "index changed sources into the projection" }],
});
