/**
 * The text the secret detector matches against. Detection only: the caller's text is never
 * rewritten. Three disguises are undone, in one left-to-right pass:
 *
 * - full-width ASCII (U+FF01..U+FF5E) folds to ASCII, the ideographic space to a space;
 * - invisible format characters are dropped (zero-width spaces and joiners, directional marks
 *   and embeddings/isolates, word joiners, the BOM, soft hyphens);
 * - JSON string escapes are decoded (`\uXXXX`, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`),
 *   so `"pa\u0073sword"` and a JSON document quoted inside another string are seen as written.
 *
 * Findings must point into the caller's text, so a changed text carries, for each of its UTF-16
 * units, the index of the caller's unit it came from.
 */
export interface DetectionText {
  readonly text: string;
  /** origin[i] is the index in the caller's text of text[i]; absent when text is unchanged. */
  readonly origin?: Uint32Array;
}

/** Characters that change the length (escapes, invisibles): only these need an origin map. */
const NEEDS_MAP = /[\\\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/;
/** Characters folded one for one (full-width punctuation is common in CJK prose). */
const FOLDED = /[\u3000\uff01-\uff5e]+/g;
function fold(run: string): string {
  let out = "";
  for (let i = 0; i < run.length; i++) {
    const code = run.charCodeAt(i);
    out += code === 0x3000 ? " " : String.fromCharCode(code - 0xfee0);
  }
  return out;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function isInvisible(code: number): boolean {
  return (
    code === 0x00ad ||
    code === 0x061c ||
    code === 0x180e ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x206f) ||
    code === 0xfeff
  );
}

function isHex(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x46) ||
    (code >= 0x61 && code <= 0x66)
  );
}

export function detectionText(original: string): DetectionText {
  if (!NEEDS_MAP.test(original)) return { text: original.replace(FOLDED, fold) };
  const units: number[] = [];
  const origin: number[] = [];
  const push = (code: number, from: number): void => {
    if (code >= 0xff01 && code <= 0xff5e) code -= 0xfee0;
    else if (code === 0x3000) code = 0x20;
    else if (isInvisible(code)) return;
    units.push(code);
    origin.push(from);
  };
  for (let i = 0; i < original.length; i++) {
    const code = original.charCodeAt(i);
    if (code === 0x5c && i + 1 < original.length) {
      const next = original[i + 1] as string;
      if (
        next === "u" &&
        i + 5 < original.length &&
        isHex(original.charCodeAt(i + 2)) &&
        isHex(original.charCodeAt(i + 3)) &&
        isHex(original.charCodeAt(i + 4)) &&
        isHex(original.charCodeAt(i + 5))
      ) {
        push(Number.parseInt(original.slice(i + 2, i + 6), 16), i);
        i += 5;
        continue;
      }
      const simple = SIMPLE_ESCAPES[next];
      if (simple !== undefined) {
        push(simple.charCodeAt(0), i);
        i += 1;
        continue;
      }
    }
    push(code, i);
  }
  // Chunked: String.fromCharCode takes its units as arguments, and argument lists are bounded.
  let text = "";
  for (let i = 0; i < units.length; i += 8192) {
    text += String.fromCharCode(...units.slice(i, i + 8192));
  }
  return { text, origin: Uint32Array.from(origin) };
}

/** The index in the caller's text of the detection text's unit at `index`. */
export function originalIndex(detection: DetectionText, index: number): number {
  if (detection.origin === undefined) return index;
  return detection.origin[index] ?? detection.origin[detection.origin.length - 1] ?? 0;
}
