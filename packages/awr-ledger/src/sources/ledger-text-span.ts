import type { Node, Pair, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { yamlModule } from "../internal/lazy-dependencies.js";

/**
 * Positions in a ledger's text, for the byte-exact editor (ledger-text-edit.ts): where a line
 * starts and ends, where a node's own text ends, and the text between nodes.
 */

/** Offset of the first character of the line holding `at`. */
export function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

/** Offset just past the line break of the line holding `at` (the text's end on its last line). */
export function lineEnd(text: string, at: number): number {
  const eol = text.indexOf("\n", at);
  return eol === -1 ? text.length : eol + 1;
}

/** Column of `at` in its line, in UTF-16 units (a ledger's indentation is spaces). */
export function column(text: string, at: number): number {
  return at - lineStart(text, at);
}

/** The line ending the file mostly uses: CRLF when most of its line breaks are CRLF. */
export function fileLineEnding(text: string): "\n" | "\r\n" {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const all = text.match(/\n/g)?.length ?? 0;
  return crlf > 0 && crlf * 2 >= all ? "\r\n" : "\n";
}

function withoutFinalBreak(text: string, end: number): number {
  if (text[end - 1] === "\n") return text[end - 2] === "\r" ? end - 2 : end - 1;
  return end;
}

/**
 * Where a node's own text ends: a flow node's closing character or a scalar's last character,
 * before any trailing comment; a block scalar or a block collection ends with its last content
 * line, before that line's break (the break, and any comment lines after, stay outside).
 */
export function contentEnd(text: string, node: Node): number {
  const { isCollection, isScalar, Scalar: ScalarClass } = yamlModule();
  const range = node.range ?? [0, 0, 0];
  if (isScalar(node)) {
    const block = node.type === ScalarClass.BLOCK_LITERAL || node.type === ScalarClass.BLOCK_FOLDED;
    return block ? withoutFinalBreak(text, range[1]) : range[1];
  }
  if (isCollection(node) && !node.flow) {
    const last = (node.items as unknown[]).at(-1);
    if (last === undefined) return range[1];
    return pairOrNodeEnd(text, last as Node | Pair<Node, Node | null>);
  }
  return range[1];
}

/** The end of a sequence entry or of a mapping pair (its value, or its key when it has none). */
export function pairOrNodeEnd(text: string, entry: Node | Pair<Node, Node | null>): number {
  const { isPair } = yamlModule();
  if (isPair(entry)) {
    const value = entry.value as Node | null;
    if (value?.range && value.range[1] > value.range[0]) return contentEnd(text, value);
    return (entry.key as Node).range?.[1] ?? 0;
  }
  return contentEnd(text, entry as Node);
}

/** The ranges of every scalar inside `node` (keys included), to tell comments from content. */
export function scalarRanges(node: Node | Pair<Node, Node | null> | null): [number, number][] {
  const { isPair, isScalar, isCollection } = yamlModule();
  if (node === null) return [];
  if (isPair(node)) return [...scalarRanges(node.key as Node), ...scalarRanges(node.value)];
  if (isScalar(node)) return node.range ? [[node.range[0], node.range[1]]] : [];
  if (isCollection(node)) {
    return (node.items as (Node | Pair<Node, Node | null>)[]).flatMap((item) => scalarRanges(item));
  }
  return [];
}

/** Whether a comment (`#` outside every scalar) is written in [start, end). */
export function hasComment(text: string, start: number, end: number, scalars: [number, number][]) {
  const chars = text.slice(start, end).split("");
  for (const [from, to] of scalars) {
    for (let i = Math.max(from, start); i < Math.min(to, end); i++) chars[i - start] = " ";
  }
  return chars.includes("#");
}

/** The offset just past a pair key's `:` (the key must be followed only by spaces and `:`). */
export function colonEnd(text: string, key: Scalar): number | undefined {
  const after = key.range?.[1] ?? 0;
  const colon = text.indexOf(":", after);
  if (colon === -1 || text.slice(after, colon).trim() !== "") return undefined;
  return colon + 1;
}

/** A block sequence's dash offset from its key (`key:\n  - a` is 2; `key:\n- a` is 0). */
export function blockListOffset(text: string, key: Node, list: YAMLSeq): number {
  const start = list.range?.[0] ?? 0;
  return column(text, start) - column(text, key.range?.[0] ?? 0);
}

/** The position of the `-` that opens a block sequence entry starting at `itemStart`. */
export function entryDash(text: string, itemStart: number): number | undefined {
  const start = lineStart(text, itemStart);
  const dash = text.lastIndexOf("-", itemStart - 1);
  if (dash < start || text.slice(start, dash).trim() !== "") return undefined;
  if (text.slice(dash + 1, itemStart).trim() !== "") return undefined;
  return dash;
}

/** The item maps of a `work_items` value, whether a list or a map keyed by the work key. */
export function itemMaps(items: YAMLSeq | YAMLMap): YAMLMap[] {
  const { isMap, isPair } = yamlModule();
  const out: YAMLMap[] = [];
  for (const entry of items.items as unknown[]) {
    const node = isPair(entry) ? (entry.value as Node | null) : (entry as Node);
    if (isMap(node)) out.push(node);
  }
  return out;
}
