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

let md: MarkdownIt | undefined;

/** The CommonMark parser, made on first use (markdown-it is loaded only when a source is parsed). */
function markdown(): MarkdownIt {
  if (md === undefined) {
    const MarkdownItClass = markdownItModule();
    md = new MarkdownItClass("commonmark");
  }
  return md;
}

/**
 * Splits Markdown into sections at every heading, using markdown-it's block tokens and their
 * line maps (so headings inside code fences are not headings). Text before the first heading is
 * ignored.
 */
export function splitSections(text: string): MarkdownSection[] {
  const lines = text.split(/\r?\n/);
  const tokens = markdown().parse(text, {});
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

/** The first paragraph of a body, as a one-line summary. */
export function firstParagraph(body: string): string | null {
  const paragraph =
    body
      .split(/\n\s*\n/)[0]
      ?.replace(/\s+/g, " ")
      .trim() ?? "";
  return paragraph === "" ? null : paragraph.slice(0, 400);
}
