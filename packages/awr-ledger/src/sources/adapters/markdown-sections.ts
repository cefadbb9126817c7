import type { MarkdownIt } from "markdown-it";
import { markdownItModule } from "../../internal/lazy-dependencies.js";

export interface MarkdownSection {
  level: number;
  /** Raw inline heading text (attributes included). */
  heading: string;
  /** 1-based, inclusive: the heading line through the last non-blank line before the next heading. */
  line_start: number;
  line_end: number;
  body: string;
}

export interface FrontMatter {
  /** The YAML between the fences. */
  yaml: string;
  /** 1-based line of the closing fence (the body starts after it). */
  end_line: number;
}

let md: MarkdownIt | undefined;

/** The CommonMark parser, made on first use (markdown-it is loaded only when a source is parsed). */
function markdown(): MarkdownIt {
  if (md === undefined) {
    const MarkdownItClass = markdownItModule();
    md = new MarkdownItClass("commonmark");
  }
  return md;
}

const FENCE = /^---[ \t]*$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * YAML front matter: a first line `---` and a closing `---` or `...` line. Undefined when the
 * text does not start with a fence; `"unterminated"` when the closing fence is missing.
 */
export function frontMatter(text: string): FrontMatter | "unterminated" | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? "")) return undefined;
  for (let i = 1; i < lines.length; i++) {
    if (CLOSE.test(lines[i] ?? "")) return { yaml: lines.slice(1, i).join("\n"), end_line: i + 1 };
  }
  return "unterminated";
}

/**
 * Splits Markdown into sections at every heading, using markdown-it's block tokens and their
 * line maps (so headings inside code fences are not headings). Text before the first heading is
 * ignored, and so is YAML front matter: its lines are blanked before parsing (keeping every
 * line number), so a front matter block is never read as a setext heading.
 */
export function splitSections(text: string): MarkdownSection[] {
  const lines = text.split(/\r?\n/);
  const front = frontMatter(text);
  if (front !== undefined && front !== "unterminated") {
    for (let i = 0; i < front.end_line; i++) lines[i] = "";
  }
  const tokens = markdown().parse(lines.join("\n"), {});
  const heads: { level: number; heading: string; start: number; end: number }[] = [];
  tokens.forEach((token, index) => {
    if (token.type !== "heading_open" || token.map === null) return;
    const inline = tokens[index + 1];
    heads.push({
      level: Number(token.tag.slice(1)),
      heading: inline?.content ?? "",
      start: token.map[0],
      end: token.map[1],
    });
  });
  return heads.map((head, i) => {
    const next = heads[i + 1]?.start ?? lines.length;
    let last = next - 1;
    while (last >= head.end && (lines[last] ?? "").trim() === "") last--;
    const body = lines
      .slice(head.end, last + 1)
      .join("\n")
      .trim();
    return {
      level: head.level,
      heading: head.heading,
      line_start: head.start + 1,
      line_end: Math.max(head.end, last + 1),
      body,
    };
  });
}

/**
 * An upper bound on the headings of a Markdown text, counted line by line without building a
 * token tree (ATX headings and setext underlines outside fenced code): a source with more
 * headings than its entity cap is refused before the parser spends memory on it.
 */
export function countHeadingLines(text: string): number {
  let count = 0;
  let fence: string | undefined;
  let previousBlank = true;
  const re = /[^\n]*(?:\n|$)/g;
  for (let match = re.exec(text); match !== null && match[0] !== ""; match = re.exec(text)) {
    const line = match[0].replace(/\r?\n$/, "");
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length)
        fence = undefined;
    } else if (opener !== undefined) {
      fence = opener;
    } else if (
      /^ {0,3}#{1,6}(?:[ \t]|$)/.test(line) ||
      (!previousBlank && /^ {0,3}(?:=+|-+)[ \t]*$/.test(line))
    ) {
      count++;
    }
    previousBlank = line.trim() === "";
  }
  return count;
}

/** The first paragraph of a body, as a one-line summary. */
export function firstParagraph(body: string): string | null {
  const paragraph =
    body
      .split(/\n\s*\n/)[0]
      ?.replace(/\s+/g, " ")
      .trim() ?? "";
  return paragraph === "" ? null : paragraph.slice(0, 400);
}
