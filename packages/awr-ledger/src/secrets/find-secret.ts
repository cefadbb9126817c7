import { DEFINITION_LIMIT } from "./definitions.js";
import { categoryOf, DETECTORS, type Detector, type ScanState, startOf } from "./detectors.js";
import { detectionText, originalIndex } from "./normalise.js";
import type { SecretCategory, SecretFinding, SourceSecretFinding } from "./policy.js";

interface Hit {
  category: SecretCategory;
  /** Index in the detection text. */
  index: number;
}

/**
 * Something every rule's match contains (a `:`/`=`, a token prefix, a scheme word, a heading
 * word): a text without any of these, like most keys and many short strings, is clean at once.
 */
const ANY_RULE =
  /[:=]|sk-|gh[pousr]_|github_pat_|xox|akia|asia|eyj|-----begin|bearer|basic|private|私有/i;

function newState(text: string, budget?: { left: number }): ScanState {
  // Definition parsing may read a quarter of the text (at least 64 KiB) per scan.
  const shared = budget ?? { left: Math.max(4 * DEFINITION_LIMIT, text.length / 4) };
  return {
    text,
    budget: shared,
    clean: (inner) => firstHit(detectionText(inner).text, shared) === undefined,
  };
}

/**
 * Calls `found(start, match)` for each accepted match of one rule, in order, until it returns
 * false or a match starts at or after `before`. The rule's global pattern is shared and a check
 * may scan nested text with it (a definition's description), so lastIndex is kept across checks.
 */
function eachAccepted(
  detector: Detector,
  state: ScanState,
  before: number,
  found: (start: number, match: RegExpExecArray) => boolean,
  skip?: (start: number) => boolean,
): void {
  const { pattern } = detector;
  const { text } = state;
  if (detector.hint !== undefined && !detector.hint.test(text)) return;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const next = Math.max(pattern.lastIndex, match.index + 1);
    const start = startOf(detector, match, text);
    if (start >= before) return;
    if (skip?.(start)) continue;
    const ok = detector.accepts === undefined || detector.accepts(match, state);
    pattern.lastIndex = next;
    if (ok && !found(start, match)) return;
  }
}

/** The earliest hit of any rule; each rule stops at its first hit or past the best so far. */
function firstHit(text: string, budget?: { left: number }): Hit | undefined {
  if (!ANY_RULE.test(text)) return undefined;
  const state = newState(text, budget);
  let best: Hit | undefined;
  for (const detector of DETECTORS) {
    eachAccepted(detector, state, best?.index ?? Number.POSITIVE_INFINITY, (index, match) => {
      best = { category: categoryOf(detector, match), index };
      return false;
    });
  }
  return best;
}

/**
 * Per rule, one hit on each of its first `limit` lines (enough for the overall first `limit`);
 * later matches on a line the rule already reported are not checked again.
 */
function leadingHits(text: string, lineOf: (index: number) => number, limit: number): Hit[] {
  if (!ANY_RULE.test(text)) return [];
  const state = newState(text);
  const hits: Hit[] = [];
  for (const detector of DETECTORS) {
    const lines = new Set<number>();
    eachAccepted(
      detector,
      state,
      Number.POSITIVE_INFINITY,
      (index, match) => {
        hits.push({ category: categoryOf(detector, match), index });
        lines.add(lineOf(index));
        return lines.size < limit;
      },
      (index) => lines.has(lineOf(index)),
    );
  }
  return hits;
}

/** 1-based line and column of `offset` in `text`. */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf("\n"); at >= 0 && at < offset; at = text.indexOf("\n", at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The first secret in `text` (by position), or undefined. The finding names the rule and where
 * the match starts in `text`; it never carries any of the matched characters.
 */
export function findSecret(text: string): SecretFinding | undefined {
  const detection = detectionText(text);
  const hit = firstHit(detection.text);
  if (hit === undefined) return undefined;
  const offset = originalIndex(detection, hit.index);
  return { category: hit.category, offset, ...position(text, offset) };
}

/** How many findings findSecretsInSource reports by default: a report, not a dump. */
export const SOURCE_FINDINGS_LIMIT = 100;

/**
 * The lines of a source file that hold a secret, once per line and rule, in line order, at most
 * `limit` of them (the first ones): what an index report names ("RULES.md line 12:
 * labelled_value") while the value itself is never read out.
 */
export function findSecretsInSource(
  text: string,
  limit = SOURCE_FINDINGS_LIMIT,
): SourceSecretFinding[] {
  const detection = detectionText(text);
  const lineStarts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) {
    lineStarts.push(at + 1);
  }
  const lineOf = (index: number): number => {
    const offset = originalIndex(detection, index);
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lineStarts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  const seen = new Set<string>();
  const findings: SourceSecretFinding[] = [];
  for (const hit of leadingHits(detection.text, lineOf, limit)) {
    const line = lineOf(hit.index);
    const key = `${line}:${hit.category}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push({ line, category: hit.category });
  }
  findings.sort((a, b) => a.line - b.line || a.category.localeCompare(b.category));
  return findings.slice(0, limit);
}
