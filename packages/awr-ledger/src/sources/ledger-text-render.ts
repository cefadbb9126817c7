import type { Scalar } from "yaml";
import { yamlModule } from "../internal/lazy-dependencies.js";
import { column, lineEnd } from "./ledger-text-span.js";

/** A value the ledger editor writes: a scalar, or a list of strings. */
export type LedgerValue = string | number | boolean | null | readonly string[];

/** How a file writes its strings: plain where it can, or always quoted. */
export type QuoteStyle = "plain" | "single" | "double";

/** The characters a double-quoted string escapes beyond JSON's (not printable in YAML). */
const UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff]/;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, "g");
/** Indicators that may not start a plain scalar. */
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;

/** A YAML double-quoted string (JSON's escapes, which YAML reads the same, plus a few more). */
export function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(
    UNPRINTABLE_ALL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Whether `value` may be written plain (in a flow collection when `flow`) and read back as itself. */
export function plainSafe(value: string, flow: boolean): boolean {
  if (value === "" || value !== value.trim() || /[\n\r\t]/.test(value)) return false;
  if (INDICATOR_START.test(value) || /: | #|:$/.test(value)) return false;
  if (flow && /[,[\]{}]/.test(value)) return false;
  if (UNPRINTABLE.test(value)) return false;
  try {
    const back = yamlModule().parse(flow ? `[${value}]` : value) as unknown;
    return flow ? Array.isArray(back) && back.length === 1 && back[0] === value : back === value;
  } catch {
    return false;
  }
}

/** A scalar's text in the given style; a string that style cannot hold is double-quoted. */
export function renderScalar(
  value: string | number | boolean | null,
  style: QuoteStyle,
  flow: boolean,
): string {
  if (value === null) return "null";
  if (typeof value !== "string") return String(value);
  if (style === "plain" && plainSafe(value, flow)) return value;
  if (style === "single" && !/[\n\r\t]/.test(value) && !UNPRINTABLE.test(value)) {
    return `'${value.replaceAll("'", "''")}'`;
  }
  return doubleQuoted(value);
}

/** The quote style of an existing scalar, to keep when its value is replaced. */
export function scalarStyle(node: Scalar, fallback: QuoteStyle): QuoteStyle {
  const { Scalar: ScalarClass } = yamlModule();
  if (node.type === ScalarClass.QUOTE_SINGLE) return "single";
  if (node.type === ScalarClass.QUOTE_DOUBLE) return "double";
  if (node.type === ScalarClass.PLAIN) return fallback === "plain" ? "plain" : fallback;
  return fallback;
}

/** A flow list of strings: `[a, "b, c"]`. */
export function flowList(items: readonly string[], style: QuoteStyle): string {
  return `[${items.map((item) => renderScalar(item, style, true)).join(", ")}]`;
}

/** A block list's lines, each on its own line after the key: `<eol><pad>- a<eol><pad>- b`. */
export function blockList(
  items: readonly string[],
  style: QuoteStyle,
  pad: string,
  eol: string,
): string {
  return items.map((item) => `${eol}${pad}- ${renderScalar(item, style, false)}`).join("");
}

/**
 * A string as a block scalar replacing the block scalar `node` (its header style kept: `>` for
 * a single line, else `|`), without the final line break (that stays in the file). Undefined
 * when a block scalar cannot hold it exactly: empty, a carriage return, a first line that
 * starts with white space (that needs an indentation indicator).
 */
export function blockScalar(
  text: string,
  node: Scalar,
  keyStart: number,
  value: string,
  eol: string,
): string | undefined {
  if (value === "" || value.includes("\r") || UNPRINTABLE.test(value)) return undefined;
  const start = node.range?.[0] ?? 0;
  const trailing = value.length - value.replace(/\n+$/, "").length;
  const body = value.slice(0, value.length - trailing);
  const lines = body.split("\n");
  const first = lines[0] ?? "";
  if (body === "" || /^[ \t]/.test(first)) return undefined;
  let indent = column(text, keyStart) + 2;
  for (let at = lineEnd(text, start); at < (node.range?.[1] ?? 0); at = lineEnd(text, at)) {
    const line = text.slice(at, lineEnd(text, at)).replace(/\r?\n$/, "");
    if (line.trim() !== "") {
      indent = line.length - line.trimStart().length;
      break;
    }
  }
  const header = text[start] === ">" && lines.length === 1 ? ">" : "|";
  const chomp = trailing === 0 ? "-" : trailing === 1 ? "" : "+";
  const pad = " ".repeat(indent);
  const content = lines.map((line) => `${eol}${line === "" ? "" : pad + line}`).join("");
  return `${header}${chomp}${content}${eol.repeat(Math.max(trailing - 1, 0))}`;
}
