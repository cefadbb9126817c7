import { isLedgerError, LedgerError } from "../../errors.js";
import { untilClosed } from "../../internal/abort.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import type { OperationGetInput } from "../../journal/operation-get.js";
import type { OperationRecoverInput } from "../../journal/operation-recover.js";
import type { SourceReindexInput } from "../../projection/source-reindex.js";
import type { SessionResumeInput, SessionResumeResult } from "../../sessions/session-resume.js";
import { MISSING_FINGERPRINT } from "../../sources/fingerprint.js";
import { about, choice, nullable, object, strings, ttlMs } from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { type OperationHost, type OperationOptions, operation } from "../operation.js";
import { readPolicy } from "../read-policy.js";
import {
  conversationId,
  expectedRevision,
  identityFields,
  requestId,
  sessionId,
  sourceSha,
} from "../shared-fields.js";
import { contextCompileOperation } from "./read-operations.js";

/** The request_id of the operation tools, which names an earlier write instead of this one. */
const LOOKED_UP = "The request_id of your earlier write.";

/**
 * The successor's context packet, exactly as awr_context_compile (or `awr context compile`)
 * answers it for the successor's work, agent, intent `resume` and the recovery baseline (the
 * inherited checkpoint, else the revision recovered from), so the same compile later answers
 * the same packet. A packet that cannot be compiled does not undo the resume; it is reported as
 * `context_ready: false` with the error.
 */
async function successorContext(
  host: OperationHost,
  resumed: SessionResumeResult,
  input: SessionResumeInput,
  caller: { client: string },
  options: OperationOptions,
): Promise<Record<string, unknown>> {
  const session = resumed.resumed.session;
  try {
    await host.project?.ensureFresh({ refresh: options.refresh === true, client: caller.client });
    const context = await contextCompileOperation.run(
      host,
      {
        session: session.id,
        ...(session.work === null ? {} : { work: session.work }),
        agent: session.agent_id,
        intent: "resume",
        ...(resumed.checkpoint_id === null
          ? { after_revision: resumed.recovery_after_revision }
          : { checkpoint: resumed.checkpoint_id }),
        ...(input.budget === undefined ? {} : { budget: input.budget }),
        ...(input.paths === undefined ? {} : { paths: input.paths }),
        ...(input.tags === undefined ? {} : { tags: input.tags }),
        ...(input.goals === undefined ? {} : { goals: input.goals }),
        ...(input.source_sha === undefined ? {} : { source_sha: input.source_sha }),
      },
      caller,
      options,
    );
    // The resume reindexed the sources before it wrote (its freshness is `refresh`), on the CLI
    // and over MCP alike: the packet is a refreshed read's, and says so.
    const policy = readPolicy(contextCompileOperation, host, {
      ...options,
      refresh: host.project !== undefined,
    });
    return { context_ready: true, context: { ok: true, ...context, ...policy } };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return { context_ready: false, context: error.result ?? null, context_error: error.toJSON() };
  }
}

/**
 * A successor must not start from a projection that lacks a planning source: a source file that
 * is missing (or unreadable) refuses the resume with SourceStale before anything is indexed or
 * written, naming the files and the fix.
 */
async function requireReadableSources(host: OperationHost): Promise<void> {
  const project = host.project;
  if (project === undefined) return;
  const { readManifestSources } = await import("../../sources/read-sources.js");
  const reads = await readManifestSources(project.root, project.manifest(true));
  const missing = reads
    .filter((read) => read.snapshot.fingerprint === MISSING_FINGERPRINT)
    .map((read) => read.path);
  if (missing.length === 0) return;
  throw new LedgerError(
    "SourceStale",
    `resume needs every planning source, and ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing: restore ${missing.length === 1 ? "it" : "them"} (or remove ${missing.length === 1 ? "it" : "them"} from .awr/project.toml and reindex), then resume; nothing was written.`,
    { missing_sources: missing },
  );
}

export const sessionResumeOperation = operation({
  tool: "awr_session_resume",
  kind: "write",
  // A resume reindexes the sources first, and a reindex that advanced the
  // revision makes a request at the earlier one RevisionConflict.
  freshness: "refresh",
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
    const { sessionResume } = await loadInOrder(() => import("../../sessions/session-resume.js"));
    await requireReadableSources(host);
    const resumed = await sessionResume(host.runtime, input, caller, options);
    const context = await successorContext(host, resumed, input, caller, options);
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
    (await loadInOrder(() => import("../../journal/operation-get.js"))).operationGet(
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
    (await loadInOrder(() => import("../../journal/operation-recover.js"))).operationRecover(
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
      () => import("../../projection/source-reindex.js"),
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
