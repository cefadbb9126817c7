import { LedgerError } from "../errors.js";
import {
  byPreference,
  type ContextChunk,
  type ContextSection,
  chunkText,
  renderChunks,
  SECTION_TITLES,
} from "./context-records.js";
import { countTokens } from "./tokens.js";

export type OmissionReason = "insufficient_budget_for_whole_chunk" | "unchanged_since_baseline";

export interface BudgetedChunks {
  included: ContextChunk[];
  omitted: { chunk: ContextChunk; reason: OmissionReason }[];
  rendered_context: string;
  /** Exact o200k_base tokens of rendered_context. */
  token_estimate: number;
  /** Tokens of the packet with the required chunks alone. */
  required_tokens: number;
}

/**
 * Chooses whole chunks for a budget. Every required chunk is kept; if they alone exceed the
 * budget the answer is BudgetExceeded {required, budget}, never a shortened packet. Optional
 * chunks unchanged since `since` (a delta baseline) are left out as such; the rest are tried in
 * preference order and kept while they fit, so a later smaller chunk can still fit after a
 * larger one did not. Fitting is estimated per chunk, then the rendered text is counted exactly
 * and the least preferred kept chunks are dropped until it fits.
 */
export function budgetChunks(
  header: string,
  chunks: readonly ContextChunk[],
  budget: number,
  since: number | null,
): BudgetedChunks {
  const required = chunks.filter((c) => c.required);
  const omitted: BudgetedChunks["omitted"] = [];
  const candidates = chunks
    .filter((c) => !c.required)
    .filter((c) => {
      if (since === null || c.recency > since) return true;
      omitted.push({ chunk: c, reason: "unchanged_since_baseline" });
      return false;
    })
    .sort(byPreference);
  const requiredText = renderChunks(header, required, candidates.length + omitted.length);
  const required_tokens = countTokens(requiredText);
  if (required_tokens > budget) {
    throw new LedgerError(
      "BudgetExceeded",
      `The required facts need ${required_tokens} tokens but the budget is ${budget}; raise budget to at least ${required_tokens}.`,
      { required: required_tokens, budget },
    );
  }
  const sections = new Set<ContextSection>(required.map((c) => c.section));
  const kept: ContextChunk[] = [];
  let estimate = required_tokens;
  for (const c of candidates) {
    const heading = sections.has(c.section)
      ? 0
      : countTokens(`\n## ${SECTION_TITLES[c.section]}\n`);
    const cost = countTokens(chunkText(c)) + heading;
    if (estimate + cost <= budget) {
      kept.push(c);
      sections.add(c.section);
      estimate += cost;
    } else omitted.push({ chunk: c, reason: "insufficient_budget_for_whole_chunk" });
  }
  const render = () => renderChunks(header, [...required, ...kept], omitted.length);
  let rendered_context = render();
  let token_estimate = countTokens(rendered_context);
  // Terminates within budget: with no optional chunk kept, the text is the required-only
  // packet measured above (its footer counted every candidate as left out).
  while (token_estimate > budget && kept.length > 0) {
    omitted.push({
      chunk: kept.pop() as ContextChunk,
      reason: "insufficient_budget_for_whole_chunk",
    });
    rendered_context = render();
    token_estimate = countTokens(rendered_context);
  }
  return {
    included: [...required, ...kept],
    omitted,
    rendered_context,
    token_estimate,
    required_tokens,
  };
}
