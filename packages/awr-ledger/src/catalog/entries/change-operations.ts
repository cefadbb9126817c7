import { about, choice, type JsonSchema, object, text } from "../json-schema.js";
import { operation } from "../operation.js";
import { expectedRevision } from "../shared-fields.js";
import { notYetImplemented } from "./not-yet-implemented.js";

/**
 * Reviewed source changes (preview → apply, status and recover by the same request identity).
 * The schemas are the interface's; the behaviour is not implemented yet, so every call answers
 * Unsupported and changes nothing.
 */

const changeKey = (): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: 256,
  description: "Your id for this change; keep it for apply, status and recover.",
});
const CHANGE_KINDS = ["create", "batch", "edit", "work_edit"] as const;
const reason = () => about("Why, in a sentence.", text());
const changeKind = () => about("The change's kind, as previewed.", choice(CHANGE_KINDS));
const fields = (): JsonSchema => ({
  type: "object",
  description: "Fields to set; never identity, lifecycle or evidence.",
});

/** The four change shapes, listed as the interface spells them. */
const change = (): JsonSchema => ({
  description: "The change: work_edit, create, batch or edit.",
  oneOf: [
    object(
      {
        kind: { const: "work_edit" },
        work: text(),
        fields: object({ title: text(), summary: text(), priority: text(), next_action: text() }),
        source_fingerprint: { type: ["string", "null"], maxLength: 256 },
      },
      ["kind", "work", "fields"],
    ),
    object(
      {
        kind: { const: "create" },
        title: text(),
        source_id: { type: ["string", "null"], maxLength: 256 },
        fields: fields(),
      },
      ["kind", "title"],
    ),
    object(
      {
        kind: { const: "batch" },
        change: { type: "object", description: "A ledger or related batch change." },
      },
      ["kind", "change"],
    ),
    object(
      {
        kind: { const: "edit" },
        change: {
          oneOf: [
            object(
              {
                operation: { const: "fields" },
                kind: { const: "work_item" },
                target: text(),
                source_fingerprint: text(),
                fields: fields(),
              },
              ["operation", "kind", "target", "source_fingerprint", "fields"],
            ),
            object(
              { operation: { const: "activate_draft" }, work: text(), source_fingerprint: text() },
              ["operation", "work", "source_fingerprint"],
            ),
          ],
        },
      },
      ["kind", "change"],
    ),
  ],
});

/** What the gate checks of `change` until the change kinds are implemented: an object. */
const CHECKED = {
  properties: { change: { type: "object", additionalProperties: true } as JsonSchema },
};
const MISSING = "reviewed source changes (preview, apply, status, recover) are not available yet";
const INSTEAD =
  "Edit the planning source files yourself, then call awr_source_reindex with the current expected_revision.";

export const changePreviewOperation = operation({
  tool: "awr_change_preview",
  kind: "read",
  freshness: "runtime",
  description:
    "Preview a source change without writing: before/after text and a fingerprint to review. Keep request_id for apply.",
  input: object({ request_id: changeKey(), reason: reason(), change: change() }, [
    "request_id",
    "reason",
    "change",
  ]),
  checked: CHECKED,
  run: notYetImplemented("awr_change_preview", MISSING, INSTEAD),
  cli: [],
});

export const changeApplyOperation = operation({
  tool: "awr_change_apply",
  kind: "write",
  freshness: "runtime",
  destructive: true,
  description:
    "Apply a reviewed preview at expected_revision with its expected_preview fingerprint; a source changed since review conflicts.",
  input: object(
    {
      request_id: changeKey(),
      reason: reason(),
      change: change(),
      expected_revision: expectedRevision(),
      expected_preview: about("The preview fingerprint you reviewed.", text()),
    },
    ["request_id", "reason", "change", "expected_revision", "expected_preview"],
  ),
  checked: CHECKED,
  run: notYetImplemented("awr_change_apply", MISSING, INSTEAD),
  cli: [],
});

export const changeStatusOperation = operation({
  tool: "awr_change_status",
  kind: "read",
  freshness: "runtime",
  description:
    "Read the outcome of your source change by kind and request_id, even while sources are stale.",
  input: object({ request_id: changeKey(), kind: changeKind() }, ["request_id", "kind"]),
  run: notYetImplemented("awr_change_status", MISSING, INSTEAD),
  cli: [],
});

export const changeRecoverOperation = operation({
  tool: "awr_change_recover",
  kind: "write",
  freshness: "runtime",
  destructive: true,
  description:
    "Resume an interrupted source change of yours by kind and request_id; never writes twice.",
  input: object(
    { request_id: changeKey(), kind: changeKind(), expected_revision: expectedRevision() },
    ["request_id", "kind", "expected_revision"],
  ),
  run: notYetImplemented("awr_change_recover", MISSING, INSTEAD),
  cli: [],
});
