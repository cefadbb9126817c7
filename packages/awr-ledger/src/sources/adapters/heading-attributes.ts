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

/** A stable slug of heading text: lower case ASCII letters, digits and single dashes. */
export function slugify(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "untitled" : slug.slice(0, 80);
}
