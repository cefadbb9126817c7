import { contextHash } from "./context-hash.js";
import { type ContextChunk, inRenderOrder, type SelectedEntity } from "./context-records.js";
import {
  BUDGET_POLICY,
  type ContextIdentity,
  TOKEN_COUNT_SCOPE,
  TOKENIZER,
  type WorkContext,
} from "./context-types.js";
import type { BudgetedChunks } from "./packing/budget-chunks.js";

const entityKey = (e: SelectedEntity) => `${e.kind}\u0000${e.id}\u0000${e.revision}`;

/**
 * The packet as results carry it (`work_context`): the chosen chunks and entities, what the
 * budget left out, and `context_hash` over all of it together with `binding` (the normalised
 * request and the completeness verdict), so equal inputs and ledger state give equal hashes.
 */
export function workContext(
  identity: ContextIdentity,
  budgeted: BudgetedChunks,
  budget: number,
  binding: Record<string, unknown>,
): WorkContext {
  const selected = inRenderOrder(budgeted.included);
  const selected_chunks = selected.map((c: ContextChunk) => ({
    key: c.key,
    section: c.section,
    required: c.required,
    entities: c.entities,
  }));
  const entities = new Map<string, SelectedEntity>();
  for (const e of [
    ...selected.flatMap((c) => c.entities),
    { kind: "work_item", id: identity.work_item_id, revision: identity.work_item_revision },
  ]) {
    entities.set(entityKey(e), e);
  }
  const selected_entities = [...entities.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, e]) => e);
  const omitted_chunks = budgeted.omitted.map(({ chunk, reason }) => ({
    key: chunk.key,
    section: chunk.section,
    entities: chunk.entities,
    reason,
  }));
  const context_hash = contextHash({
    policy: BUDGET_POLICY,
    tokenizer: TOKENIZER,
    budget,
    identity,
    binding,
    selected_chunks,
    selected_entities,
    omitted_chunks,
    rendered_context: budgeted.rendered_context,
  });
  return {
    identity,
    rendered_context: budgeted.rendered_context,
    context_hash,
    token_estimate: budgeted.token_estimate,
    required_tokens: budgeted.required_tokens,
    token_budget: budget,
    tokenizer: TOKENIZER,
    token_count_scope: TOKEN_COUNT_SCOPE,
    policy: BUDGET_POLICY,
    selected_chunks,
    selected_entities,
    omitted_chunks,
  };
}
