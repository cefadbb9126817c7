import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

/** Tokens of `text` in the o200k_base encoding: the unit of every context budget. */
export function countTokens(text: string): number {
  return countO200k(text);
}
