import { o200kModule } from "../internal/lazy-dependencies.js";

/**
 * Tokens of `text` in the o200k_base encoding: the unit of every context budget. The encoding is
 * loaded on the first call (it is large and only context compilation needs it).
 */
export function countTokens(text: string): number {
  return o200kModule().countTokens(text);
}
