import { isBasicCredential, isOpaqueBearerValue } from "./credential-shapes.js";
import { definitionFollows, type TextCheck } from "./definitions.js";
import type { SecretCategory } from "./policy.js";
import { hasValueAt, skipSpace } from "./values.js";

/**
 * The recognition rules: one precompiled pattern per rule and, where a pattern alone would
 * over-match, a check of what it matched. Every pattern is written so that a scan stays linear
 * on hostile input: candidate starts are pinned by look-behinds to the start of a run, and no
 * repeated group can match the same text two ways. A value is read through a look-ahead where
 * the word before it could start another candidate ("bearer Bearer x").
 */

/** What a rule's check may consult besides its match. */
export interface ScanState {
  readonly text: string;
  /** Characters left for schema-definition parsing in this scan (see definitionFollows). */
  readonly budget: { left: number };
  /** The clean-text check for strings inside definitions (the detector, sharing the budget). */
  readonly clean: TextCheck;
}

export interface Detector {
  readonly category: SecretCategory | ((match: RegExpMatchArray) => SecretCategory);
  /**
   * A cheap pattern (literals only, with the rule's own case flags) that every match contains:
   * a text without it skips the rule, so a short text (a manifest, a tool argument) does not
   * pay for compiling rules whose Unicode classes and look-behinds cost far more than a scan.
   */
  readonly hint?: RegExp;
  /** Global (`g`): scanned with exec from lastIndex 0. */
  readonly pattern: RegExp;
  readonly accepts?: (match: RegExpMatchArray, state: ScanState) => boolean;
  /** Where the finding starts, when not at the match (a label inside a longer name). */
  readonly start?: (match: RegExpMatchArray, text: string) => number;
}

const end = (match: RegExpMatchArray): number => (match.index ?? 0) + match[0].length;

/** The start of the name a label ends (`OPENAI_API_KEY`, `x-api-key`), at most 256 back. */
function nameStart(match: RegExpMatchArray, text: string): number {
  let at = match.index ?? 0;
  const stop = Math.max(0, at - 256);
  while (at > stop && /[A-Za-z0-9_-]/.test(text[at - 1] as string)) at--;
  return at;
}

function valueThatIsNotADefinition(match: RegExpMatchArray, state: ScanState, skipScheme = false) {
  return (
    hasValueAt(state.text, end(match), skipScheme) &&
    !definitionFollows(state.text, end(match), state.clean, state.budget)
  );
}

/**
 * Whether what follows a label that ends its line starts a new block rather than continuing the
 * label: it comes after a blank line, or is a Markdown heading or a YAML comment (`#`). So a
 * `Token:` closing a paragraph above the next `## Section` names no value, while `password:`
 * above an indented (or unindented) value on the next line still does.
 */
function valueStartsNewBlock(text: string, from: number): boolean {
  const at = skipSpace(text, from);
  const firstBreak = text.indexOf("\n", from);
  if (firstBreak < 0 || firstBreak >= at) return false;
  const secondBreak = text.indexOf("\n", firstBreak + 1);
  return (secondBreak >= 0 && secondBreak < at) || text[at] === "#";
}

/** A value that continues the label: valueThatIsNotADefinition, not across a new block. */
function labelledValue(match: RegExpMatchArray, state: ScanState, skipScheme = false) {
  return (
    !valueStartsNewBlock(state.text, end(match)) &&
    valueThatIsNotADefinition(match, state, skipScheme)
  );
}

/** `NAME=1 NAME2=x command …`: assignments that prefix a command are not an environment dump. */
function prefixesACommand(line: string): boolean {
  let assigned = false;
  for (const word of line.replace(/^[\s"'`]+|[\s"'`.,;:)]+$/g, "").split(/\s+/)) {
    const eq = word.indexOf("=");
    if (eq >= 0) {
      const name = word.slice(0, eq);
      const value = word.slice(eq + 1);
      if (!/^[A-Z_][A-Z0-9_]*$/.test(name) || value === "" || /['"`;]/.test(value)) return false;
      assigned = true;
      continue;
    }
    return assigned && /\p{L}/u.test(word) && /^[A-Za-z0-9_\-./]+$/.test(word);
  }
  return false;
}

function lineAt(text: string, index: number): string {
  const start = text.lastIndexOf("\n", index - 1) + 1;
  const stop = text.indexOf("\n", index);
  return text.slice(start, stop < 0 ? text.length : Math.min(stop, start + 4096));
}

const LABELS =
  "api[\\s_-]*key|access[\\s_-]*token|refresh[\\s_-]*token|id[\\s_-]*token|client[\\s_-]*secret|" +
  "password|passwd|pwd|secret|token|authorization|private[\\s_-]*prompt";
/** CJK labels have no word boundary to stand on: they match inside a run of CJK text too. */
const CJK_LABELS = "密码|密碼|口令|令牌|密钥|密鑰|私有提示词|私有提示詞|私有[\\s_-]*prompt";
const NOT_WORD_BEFORE = "(?<![\\p{L}\\p{N}_])";
/** A label starts a word or follows `_`/`-` inside a name (`OPENAI_API_KEY`, `x-api-key`). */
const LABEL_START = "(?<![\\p{L}\\p{N}])";

/** A labelled value's category: a private prompt's label, or any other credential label. */
function categoryOfLabel(match: RegExpMatchArray): SecretCategory {
  return /^(?:private|私有)/i.test(match[1] ?? match[2] ?? "")
    ? "private_prompt"
    : "labelled_value";
}

export const DETECTORS: readonly Detector[] = [
  { category: "openai_key", hint: /sk-/iu, pattern: /(?<![\p{L}\p{N}_])sk-[a-z0-9_-]{16,}/giu },
  {
    category: "github_token",
    hint: /gh[pousr]_|github_pat_/iu,
    pattern: /(?<![\p{L}\p{N}_])(?:gh[pousr]_[a-z0-9]{20,}|github_pat_[a-z0-9_]{20,})/giu,
  },
  {
    category: "slack_token",
    hint: /xox[baprs]-/iu,
    pattern: /(?<![\p{L}\p{N}_])xox[baprs]-[a-z0-9-]{12,}/giu,
  },
  {
    category: "aws_access_key",
    hint: /AKIA|ASIA/u,
    pattern: /(?<![\p{L}\p{N}_])(?:AKIA|ASIA)[A-Z0-9]{16}(?![\p{L}\p{N}_])/gu,
  },
  {
    category: "jwt",
    hint: /eyJ/iu,
    pattern: /(?<![\p{L}\p{N}_-])eyJ[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}/giu,
  },
  {
    category: "private_key",
    hint: /-----BEGIN /iu,
    pattern: /-----BEGIN (?:[A-Z0-9]+ )?PRIVATE KEY(?: BLOCK)?-----/giu,
  },
  {
    category: "url_credentials",
    hint: /:\/\//u,
    pattern: /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s/@:]+:([^\s/@]+)@/giu,
    accepts: (match) => hasValueAt(match[1] ?? "", 0),
  },
  {
    category: "bearer_credential",
    hint: /bearer/iu,
    pattern: /(?<![\p{L}\p{N}_])bearer\s+(?=([a-z0-9+/_=-]+))/giu,
    accepts: (match) => isOpaqueBearerValue(match[1] ?? ""),
  },
  {
    category: "basic_credential",
    hint: /basic/iu,
    pattern: /(?<![\p{L}\p{N}_])basic\s+(?=([a-z0-9+/_=-]+))/giu,
    accepts: (match) => isBasicCredential(match[1] ?? ""),
  },
  {
    category: categoryOfLabel,
    hint: new RegExp(`${LABELS}|${CJK_LABELS}`, "iu"),
    pattern: new RegExp(`(?:${LABEL_START}(${LABELS})|(${CJK_LABELS}))[\\s"'\`*]*[:=](?!=)`, "giu"),
    // A private prompt's text may follow its label after a blank line, as under a heading.
    accepts: (match, state) =>
      categoryOfLabel(match) === "private_prompt"
        ? valueThatIsNotADefinition(match, state)
        : labelledValue(match, state, /^authorization$/i.test(match[1] ?? "")),
    start: nameStart,
  },
  {
    category: "env_assignment",
    pattern: /^[ \t"'`]*[A-Z_][A-Z0-9_]{1,80}[ \t]*=(?!=)/gmu,
    accepts: (match, state) =>
      !prefixesACommand(lineAt(state.text, match.index ?? 0)) && labelledValue(match, state),
  },
  {
    category: "env_assignment",
    hint: /export/u,
    pattern: /(?<![\p{L}\p{N}_])export[ \t]+[A-Z_][A-Z0-9_]{1,80}[ \t]*=(?!=)/gu,
    accepts: labelledValue,
  },
  {
    category: "env_block",
    hint: /env|环境变量|環境變數/iu,
    pattern: new RegExp(
      `(?:${NOT_WORD_BEFORE}(?:environment[ _-]*(?:variables|vars|dump)|environment|env)|环境变量|環境變數)[\\s"'\`]*[:=](?!=)`,
      "giu",
    ),
    accepts: (match, state) => {
      const from = end(match);
      const at = skipSpace(state.text, from);
      const opensBlock = state.text[at] === "{" || state.text[at] === "[";
      const onNextLine = state.text.slice(from, at).includes("\n");
      return (opensBlock || onNextLine) && valueThatIsNotADefinition(match, state);
    },
  },
  {
    category: "private_prompt",
    hint: /private|私有/iu,
    pattern:
      /^[ \t]*(?:#{1,6}[ \t]+)?(?:private[ _-]*prompt|私有提示词|私有提示詞|私有[ _-]*prompt)[ \t]*[:=]?[ \t]*\r?$/gimu,
    accepts: (match, state) => hasValueAt(state.text, end(match)),
  },
];

export function categoryOf(detector: Detector, match: RegExpMatchArray): SecretCategory {
  return typeof detector.category === "function" ? detector.category(match) : detector.category;
}

export function startOf(detector: Detector, match: RegExpMatchArray, text: string): number {
  return detector.start === undefined ? (match.index ?? 0) : detector.start(match, text);
}
