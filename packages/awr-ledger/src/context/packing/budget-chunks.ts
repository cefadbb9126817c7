import { LedgerError } from "../../errors.js";
import {
  byPreference,
  type ContextChunk,
  type ContextSection,
  chunkText,
  footerText,
  headingText,
  renderSegments,
} from "../context-records.js";
import { countTokens } from "../tokens.js";

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
 * larger one did not. Token counts add up exactly over segments (see renderSegments), so every
 * decision is exact. The footer is reserved at its largest (every candidate left out): its
 * count only shrinks as chunks are kept.
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
  const sections = new Set<ContextSection>();
  const costOf = (c: ContextChunk) =>
    countTokens(chunkText(c)) + (sections.has(c.section) ? 0 : countTokens(headingText(c.section)));
  let body = countTokens(header);
  for (const c of required) {
    body += costOf(c);
    sections.add(c.section);
  }
  const footerReserve = countTokens(footerText(candidates.length + omitted.length));
  const required_tokens = body + footerReserve;
  if (required_tokens > budget) {
    throw new LedgerError(
      "BudgetExceeded",
      `The required facts need ${required_tokens} tokens but the budget is ${budget}; raise budget to at least ${required_tokens}.`,
      { required: required_tokens, budget },
    );
  }
  const kept: ContextChunk[] = [];
  for (const c of candidates) {
    const cost = costOf(c);
    if (body + cost + footerReserve <= budget) {
      kept.push(c);
      sections.add(c.section);
      body += cost;
    } else omitted.push({ chunk: c, reason: "insufficient_budget_for_whole_chunk" });
  }
  const included = [...required, ...kept];
  return {
    included,
    omitted,
    rendered_context: renderSegments(header, included, omitted.length).join(""),
    token_estimate: body + countTokens(footerText(omitted.length)),
    required_tokens,
  };
}
