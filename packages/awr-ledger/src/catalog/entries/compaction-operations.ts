import type {
  CompactionDeferInput,
  CompactionGetInput,
  CompactionObserveInput,
} from "../../compaction/compaction-tools.js";
import { LIMITS } from "../../core/limits.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import { about, id, type JsonSchema, nullable, object, SESSION_SELECTOR } from "../json-schema.js";
import { operation } from "../operation.js";
import { conversationId, expectedRevision, sessionId } from "../shared-fields.js";

/**
 * Compaction continuity: the host reports each completed native compaction from its own
 * telemetry, AWR keeps it as an event of the session and advises (continue, or prepare a
 * user-approved handoff when the context stays above the policy's threshold). AWR never
 * compacts, clears history or switches a session itself.
 */

const tools = () => loadInOrder(() => import("../../compaction/compaction-tools.js"));

const count = (): JsonSchema => nullable({ type: "integer", minimum: 0 });
const selector = { session: sessionId(), conversation: conversationId() };

const observation = (): JsonSchema =>
  object(
    {
      compaction_id: { type: "string", minLength: 1, maxLength: 256 },
      sequence: { type: "integer", minimum: 1 },
      observed_at: { type: "integer", minimum: 1 },
      trigger: { type: "string", enum: ["automatic", "manual"] },
      model: id(),
      source: id(),
      measurement_scope: { type: "string", enum: ["full_request", "history_only", "unknown"] },
      measurement_basis: { type: "string", enum: ["host_reported", "estimated", "unknown"] },
      before_tokens: count(),
      after_tokens: count(),
      context_window_tokens: nullable({ type: "integer", minimum: 1, maximum: 1_000_000_000 }),
      duration_ms: count(),
      usage: nullable(
        object({
          input_tokens: count(),
          output_tokens: count(),
          cached_input_tokens: count(),
          cost_usd: nullable({ type: "number", minimum: 0 }),
        }),
      ),
    },
    [
      "compaction_id",
      "sequence",
      "observed_at",
      "trigger",
      "model",
      "source",
      "measurement_scope",
      "measurement_basis",
    ],
  );

export const compactionObserveOperation = operation({
  tool: "awr_compaction_observe",
  kind: "write",
  freshness: "runtime",
  description:
    "Record one completed native compaction from host telemetry (stable id, rising sequence); omit what is unknown.",
  input: object(
    {
      expected_revision: expectedRevision(),
      observation: about("The host's telemetry of one compaction.", observation()),
      policy: about(
        "Your advice threshold.",
        object(
          {
            post_compaction_threshold_percent: {
              type: "integer",
              minimum: 1,
              maximum: 100,
              default: 50,
            },
          },
          ["post_compaction_threshold_percent"],
        ),
      ),
      ...selector,
    },
    ["expected_revision", "observation"],
    SESSION_SELECTOR,
  ),
  run: async (host, input: CompactionObserveInput, caller, options) =>
    (await tools()).compactionObserve(host.runtime, input, caller, options),
  cli: [
    {
      path: ["session", "compaction", "observe"],
      summary: "record a completed native compaction from the host's JSON (--input FILE)",
      flags: { observation: null, policy: null, session: null, conversation: null },
      inputFile: {
        flag: "--input",
        rename: {},
        base: "project",
        maxBytes: LIMITS.compaction.inputFileBytes,
      },
    },
  ],
});

export const compactionGetOperation = operation({
  tool: "awr_compaction_get",
  kind: "read",
  // Answers in its own envelope (freshness_basis runtime_records_only); never reads sources.
  freshness: "scoped",
  description:
    "Read the latest compaction advice of a session; include_observation adds its measurements.",
  input: object(
    {
      include_observation: about("Add the measurements.", { type: "boolean", default: false }),
      ...selector,
    },
    [],
    SESSION_SELECTOR,
  ),
  run: async (host, input: CompactionGetInput, caller, options) =>
    (await tools()).compactionGet(host.runtime, input, caller, options),
  cli: [
    {
      path: ["session", "compaction", "inspect"],
      summary:
        "the latest compaction assessment of a session (--include-observation: measurements)",
    },
  ],
});

export const compactionDeferOperation = operation({
  tool: "awr_compaction_defer",
  kind: "write",
  freshness: "runtime",
  description:
    "Record that the user postponed the handoff advice of the latest observation, until the next compaction.",
  input: object(
    {
      expected_revision: expectedRevision(),
      observation_event_id: about("The observation to defer.", id()),
      ...selector,
    },
    ["expected_revision", "observation_event_id"],
    SESSION_SELECTOR,
  ),
  run: async (host, input: CompactionDeferInput, caller, options) =>
    (await tools()).compactionDefer(host.runtime, input, caller, options),
  cli: [
    {
      path: ["session", "compaction", "defer"],
      summary: "record the user's \"not now\" for the latest observation's handoff advice",
    },
  ],
});
