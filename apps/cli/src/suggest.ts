import leven from "leven";

/** At most this many suggestions: more are a list, not a correction. */
const MAX_SUGGESTIONS = 3;

/**
 * The candidates a mistyped `word` most likely meant: those at the smallest edit distance
 * (Levenshtein, ignoring case), if it is within 40% of the word's length (at least one edit),
 * so that `stauts` finds `status` and an unrelated word finds nothing. In the candidates' order.
 */
export function nearest(word: string, candidates: Iterable<string>): string[] {
  const typed = word.toLowerCase();
  const bound = Math.max(1, Math.round(typed.length * 0.4));
  let best = bound + 1;
  let found: string[] = [];
  for (const candidate of new Set(candidates)) {
    const distance = leven(typed, candidate.toLowerCase());
    if (distance < best) {
      best = distance;
      found = [candidate];
    } else if (distance === best) {
      found.push(candidate);
    }
  }
  return found.slice(0, MAX_SUGGESTIONS);
}

/** "Did you mean `a`?" or "Did you mean `a` or `b`?" */
export function didYouMean(suggestions: readonly string[]): string {
  const quoted = suggestions.map((s) => `\`${s}\``);
  const last = quoted.pop();
  return `Did you mean ${quoted.length > 0 ? `${quoted.join(", ")} or ` : ""}${last}?`;
}
