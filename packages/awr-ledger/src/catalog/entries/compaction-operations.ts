import { about, id, type JsonSchema, nullable, object, SESSION_SELECTOR } from "../json-schema.js";
import { operation } from "../operation.js";
import { conversationId, expectedRevision, sessionId } from "../shared-fields.js";
import { notYetImplemented } from "./not-yet-implemented.js";

/**
 * Compaction continuity: the host reports its native context compaction, AWR advises on a
 * handoff. The schemas are the interface's; the behaviour is not implemented yet, so every
 * call answers Unsupported and records nothing.
 */

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

const MISSING = "compaction continuity (observe, get, defer) is not available yet";
const INSTEAD =
  "Checkpoint the session (awr_session_checkpoint) before and after a compaction, and resume from it.";

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
  run: notYetImplemented("awr_compaction_observe", MISSING, INSTEAD),
  cli: [],
});

export const compactionGetOperation = operation({
  tool: "awr_compaction_get",
  kind: "read",
  freshness: "runtime",
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
  run: notYetImplemented("awr_compaction_get", MISSING, INSTEAD),
  cli: [],
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
  run: notYetImplemented("awr_compaction_defer", MISSING, INSTEAD),
  cli: [],
});
