import { markdownItModule } from "../../internal/lazy-dependencies.js";

/**
 * Heading attributes in the form `Title text {#key name=value name="quoted value"}` at the end of
 * a heading. Returns the title without the braces, the key (if `#key` was given), the named
 * values, and a problem description when the braces hold something unreadable.
 */
export interface HeadingAttributes {
  title: string;
  key: string | undefined;
  values: Record<string, string>;
  problem: string | undefined;
}

const TRAILING = /\s*\{([^{}]*)\}\s*$/;
const TOKEN =
  /\s*(?:#([A-Za-z0-9._:/#-]+)|([A-Za-z_][A-Za-z0-9_-]*)=(?:"([^"]*)"|'([^']*)'|([^\s"']+)))\s*/y;

export function parseHeadingAttributes(text: string): HeadingAttributes {
  const match = TRAILING.exec(text);
  if (match === null) return { title: text.trim(), key: undefined, values: {}, problem: undefined };
  const inner = match[1] ?? "";
  const values: Record<string, string> = {};
  let key: string | undefined;
  TOKEN.lastIndex = 0;
  let position = 0;
  while (position < inner.length) {
    TOKEN.lastIndex = position;
    const token = TOKEN.exec(inner);
    if (token === null || token[0].length === 0) {
      if (inner.slice(position).trim() === "") break;
      return {
        title: text.slice(0, match.index).trim(),
        key,
        values,
        problem: `cannot read heading attributes "{${inner}}" near "${inner.slice(position).trim()}" (use {#key name=value})`,
      };
    }
    if (token[1] !== undefined) key = token[1];
    else if (token[2] !== undefined) values[token[2]] = token[3] ?? token[4] ?? token[5] ?? "";
    position = TOKEN.lastIndex;
  }
  return { title: text.slice(0, match.index).trim(), key, values, problem: undefined };
}

const INLINE_MARKUP = /[*_`[\]<>\\!&]/;

/**
 * Heading text as a reader sees it: inline markup (emphasis, code spans, links, escapes) reduced
 * to its text: that is a heading's title. Plain text is returned as it is.
 */
export function plainHeadingText(raw: string): string {
  if (!INLINE_MARKUP.test(raw)) return raw;
  const inline = markdownInline(raw);
  return inline === undefined ? raw : inline.trim();
}

function markdownInline(raw: string): string | undefined {
  const MarkdownIt = markdownItModule();
  plain ??= new MarkdownIt("commonmark");
  const children = plain.parseInline(raw, {})[0]?.children ?? [];
  let text = "";
  for (const token of children) {
    if (token.type === "text" || token.type === "code_inline") text += token.content;
    else if (token.type === "softbreak" || token.type === "hardbreak") text += " ";
  }
  return text;
}

let plain: import("markdown-it").MarkdownIt | undefined;

/**
 * The key part of a heading without `{#key}` (docs/compatibility/sources.md): the text in lower
 * case, keeping letters and digits of every script, `_` and `-`; each run of white space
 * becomes one `-`; everything else is dropped; leading and trailing `-` are trimmed; an empty
 * result is `section`. So an all-Chinese heading keeps its characters (`交付范围`). Repeats
 * within one source get `-2`, `-3`, ... (see markdown-heading-v1).
 */
export function slugify(text: string): string {
  let slug = "";
  for (const c of text.toLowerCase()) {
    if (/[\p{Alphabetic}\p{N}_-]/u.test(c)) slug += c;
    else if (/\s/u.test(c) && !slug.endsWith("-")) slug += "-";
  }
  slug = slug.replace(/^-+|-+$/g, "");
  return slug === "" ? "section" : slug;
}
