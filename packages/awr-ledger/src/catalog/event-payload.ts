import type { JsonSchema } from "./json-schema.js";
import { LIMITS } from "./limits.js";

/**
 * The free-form event payload: observations with known names only (inventory version 1,
 * docs/compatibility/storage.md), so a payload stays data and never grows into a second channel.
 * Text fields hold at most the byte counts given; `*_id` fields name ledger objects by ULID.
 */
const TEXT_FIELDS: readonly (readonly [string, number])[] = [
  ["status", 128],
  ["tool", 256],
  ["operation", 256],
  ["error_code", 128],
  ["command", 4096],
  ["report", 4096],
  ["detail", LIMITS.eventPayloadBytes],
  ["body", LIMITS.eventPayloadBytes],
  ["stdout", LIMITS.eventPayloadBytes],
  ["stderr", LIMITS.eventPayloadBytes],
];
const ID_FIELDS = ["source_id", "artifact_id", "checkpoint_id", "evidence_id"];
const ULID = "^[0-9A-HJKMNP-TV-Z]{26}$";

export function eventPayloadSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, max] of TEXT_FIELDS) properties[name] = { type: "string", maxLength: max };
  for (const name of ID_FIELDS) {
    properties[name] = { type: "string", minLength: 26, maxLength: 26, pattern: ULID };
  }
  properties["exit_code"] = { type: "integer" };
  for (const name of ["duration_ms", "count", "attempt"]) {
    properties[name] = { type: "integer", minimum: 0 };
  }
  properties["tags"] = { type: "array", maxItems: 32, items: { type: "string", maxLength: 128 } };
  properties["changed_entities"] = {
    type: "array",
    maxItems: 256,
    items: { type: "string", maxLength: 512 },
  };
  properties["metrics"] = {
    type: "object",
    maxProperties: 32,
    propertyNames: { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_.-]+$" },
    additionalProperties: { type: "number" },
  };
  return {
    type: ["object", "null"],
    properties,
    additionalProperties: false,
    description: "Observations (v1 fields), never executed.",
  };
}
