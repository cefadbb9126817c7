/**
 * How a search text becomes terms. Words are runs of letters, digits and `_`. Scripts written
 * without spaces between words (Chinese, Japanese, Korean) are searched as substrings: a run of
 * such characters is one term that must appear somewhere inside a text, so a two-character word
 * in the middle of a Chinese title is found.
 */
const CJK =
  /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u{20000}-\u{3134f}]/u;
const CJK_RUN =
  /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u{20000}-\u{3134f}]+/gu;

export interface SearchTerms {
  /** Every term, in query order (at most 16). */
  all: string[];
  /** The CJK terms among them (searched as substrings). */
  cjk: string[];
  /** The other words (searched as word prefixes, or as substrings when CJK terms are present). */
  words: string[];
}

export function isCjk(term: string): boolean {
  return CJK.test(term);
}

/** The terms of a search text; every term must match for a record to be found. */
export function searchTerms(text: string): SearchTerms {
  const normalised = text.normalize("NFKC");
  const cjk = normalised.match(CJK_RUN) ?? [];
  const words = normalised.replace(CJK_RUN, " ").match(/[\p{L}\p{N}_]+/gu) ?? [];
  const all = [...words, ...cjk].slice(0, 16);
  return { all, cjk: all.filter(isCjk), words: all.filter((t) => !isCjk(t)) };
}

/** The character bigrams of a CJK term, in order (a one-character term is its own bigram). */
export function bigrams(term: string): string[] {
  const chars = [...term];
  if (chars.length < 2) return chars;
  return chars.slice(1).map((c, i) => `${chars[i]}${c}`);
}

/** A LIKE pattern matching `term` anywhere, with LIKE's own characters escaped by `\`. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An ASCII word character, and how far an excerpt grows to keep such a word whole. */
const WORD_CHAR = /[0-9A-Za-z]/;
const WORD_REACH = 32;

/**
 * A bounded excerpt of `text` around the first term found in it, terms marked as [term];
 * the text's start when none is found.
 */
export function markedExcerpt(text: string, terms: readonly string[], width = 80): string {
  const lower = text.toLowerCase();
  const at = Math.min(
    ...terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0),
    Number.POSITIVE_INFINITY,
  );
  let start = Number.isFinite(at) ? Math.max(0, at - width / 2) : 0;
  let end = start + width;
  // Not inside an ASCII word or id up to WORD_REACH characters: a cut id (a session's, say)
  // could not be recognised, and so not withheld, by the reads that replace ids
  // (runtime/session-id-privacy.ts).
  const [from, to] = [start - WORD_REACH, end + WORD_REACH];
  while (start > Math.max(0, from) && WORD_CHAR.test(text.charAt(start - 1))) start--;
  while (end < Math.min(text.length, to) && WORD_CHAR.test(text.charAt(end))) end++;
  let excerpt = text.slice(start, end).replace(/\s+/g, " ");
  const alternatives = [...terms]
    .filter((t) => t !== "")
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (alternatives.length > 0) {
    excerpt = excerpt.replace(new RegExp(alternatives.join("|"), "giu"), (m) => `[${m}]`);
  }
  return `${start > 0 ? "…" : ""}${excerpt}${end < text.length ? "…" : ""}`;
}
