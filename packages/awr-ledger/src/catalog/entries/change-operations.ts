import {
  applyChange,
  type ChangeApplyInput,
  type ChangePreviewInput,
  type ChangeRecoverInput,
  type ChangeStatusInput,
  changeStatus,
  previewChange,
  recoverChange,
} from "../../changes/change-engine.js";
import type { ChangeEnv } from "../../changes/change-kind.js";
import type { RuntimeCaller } from "../../core/runtime-context.js";
import { LedgerError } from "../../errors.js";
import { about, choice, type JsonSchema, object, text } from "../json-schema.js";
import { type OperationHost, operation } from "../operation.js";
import { expectedRevision } from "../shared-fields.js";

/**
 * Reviewed source changes (preview → apply, status and recover by the same request identity),
 * run by the engine in changes/: kinds create, batch (of one work ledger), edit and work_edit; a
 * related batch answers Unsupported naming what is missing. They keep their own journal (source_changes), not the MCP request
 * journal, so nothing between a preview and its apply spends a project revision.
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

/** What the gate checks of `change`: an object; each change kind checks its own shape (changes/). */
const CHECKED = {
  properties: { change: { type: "object", additionalProperties: true } as JsonSchema },
};
/** What the engine runs against: the project's store and root, and the authenticated client. */
function changeEnv(host: OperationHost, caller: RuntimeCaller): ChangeEnv {
  const root = host.project?.root ?? host.runtime.root;
  if (root === undefined) {
    throw new LedgerError(
      "Unsupported",
      "Reviewed source changes need the project's sources; open the ledger on its project root.",
    );
  }
  return { store: host.runtime.store, root, client: caller.client, now: () => host.runtime.now() };
}

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
  run: (host, input: ChangePreviewInput, caller) => previewChange(changeEnv(host, caller), input),
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
  run: (host, input: ChangeApplyInput, caller) => applyChange(changeEnv(host, caller), input),
  cli: [],
});

export const changeStatusOperation = operation({
  tool: "awr_change_status",
  kind: "read",
  freshness: "runtime",
  description:
    "Read the outcome of your source change by kind and request_id, even while sources are stale.",
  input: object({ request_id: changeKey(), kind: changeKind() }, ["request_id", "kind"]),
  run: (host, input: ChangeStatusInput, caller) => changeStatus(changeEnv(host, caller), input),
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
  run: (host, input: ChangeRecoverInput, caller) => recoverChange(changeEnv(host, caller), input),
  cli: [],
});
