import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";

/**
 * Width in terminal columns: colour sequences take none, a CJK character or an emoji two, a
 * combining mark none (string-width's measure, which terminals follow).
 */
export function visibleWidth(text: string): number {
  return stringWidth(text);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Shortens plain text to at most `max` columns, ending with an ellipsis when cut; a wide
 * character that would straddle the limit is left out whole.
 */
export function truncate(text: string, max: number): string {
  if (visibleWidth(text) <= max) return text;
  let kept = "";
  let width = 0;
  for (const { segment } of graphemes.segment(text)) {
    const next = visibleWidth(segment);
    if (width + next > max - 1) break;
    kept += segment;
    width += next;
  }
  return `${kept}…`;
}

/**
 * `text` wrapped to `width` columns at word boundaries (a word longer than a line is broken),
 * as one string per line; its own line breaks are kept.
 */
export function wrapText(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: true }).split("\n");
}

export interface TableColumn<Row> {
  readonly header: string;
  readonly value: (row: Row) => string;
  /**
   * A column of prose (a title, a next action, a path): it takes what the other columns leave
   * of the width, and its cells are cut with an ellipsis to fit. Other columns (keys, states,
   * counts) are always shown whole.
   */
  readonly shrink?: boolean;
  /** Colours the already-cut text of a cell (headers are never coloured here). */
  readonly style?: (text: string, row: Row) => string;
}

export interface TableOptions {
  /** Styles the header row (e.g. dim). */
  readonly header?: (text: string) => string;
  /** The columns the table may take, its indentation already subtracted (default: unbounded). */
  readonly width?: number;
}

/** The gap between two columns. */
const GAP = 2;
/** A wrapped value keeps at least this many columns a line. */
const MIN_VALUE = 20;
/**
 * A shrinking column keeps at least this many columns (or its widest cell, if narrower), and
 * never less than its header.
 */
const MIN_SHRUNK = 10;

/**
 * The width of each column: its widest cell, unless the table would be wider than `width`;
 * then the shrinking columns share what the others leave, the narrow ones whole first and the
 * rest evenly. When even their minimum does not fit, the table is wider than asked.
 */
function columnWidths(
  natural: number[],
  headers: number[],
  shrinks: boolean[],
  width: number,
): number[] {
  const total = natural.reduce((sum, w) => sum + w, 0) + GAP * Math.max(0, natural.length - 1);
  if (total <= width) return natural;
  const widths = [...natural];
  const fixed = natural.reduce((sum, w, i) => (shrinks[i] ? sum : sum + w), 0);
  let left = width - fixed - GAP * Math.max(0, natural.length - 1);
  const open = natural
    .map((w, i) => ({ w, i }))
    .filter(({ i }) => shrinks[i])
    .sort((a, b) => a.w - b.w);
  open.forEach(({ w, i }, n) => {
    const share = Math.floor(left / (open.length - n));
    const least = Math.max(Math.min(w, MIN_SHRUNK), headers[i] ?? 0);
    widths[i] = Math.max(least, Math.min(w, share));
    left -= widths[i] as number;
  });
  return widths;
}

/**
 * Left-aligned columns separated by two spaces, a header row first, fitted to `width` by
 * display width; the last column is not padded. Newlines inside a cell become spaces so a row
 * stays one line.
 */
export function formatTable<Row>(
  rows: readonly Row[],
  columns: readonly TableColumn<Row>[],
  options: TableOptions = {},
): string[] {
  const header = options.header ?? ((text: string) => text);
  const raw = rows.map((row) =>
    columns.map((column) => column.value(row).replace(/\s*\n\s*/g, " ")),
  );
  const natural = columns.map((column, i) =>
    Math.max(visibleWidth(column.header), ...raw.map((row) => visibleWidth(row[i] ?? ""))),
  );
  const widths = columnWidths(
    natural,
    columns.map((column) => visibleWidth(column.header)),
    columns.map((column) => column.shrink === true),
    options.width ?? Number.POSITIVE_INFINITY,
  );
  const cells = raw.map((row) => row.map((text, i) => truncate(text, widths[i] ?? 0)));
  const line = (parts: string[], plain: string[]) =>
    parts
      .map((part, i) =>
        i === parts.length - 1
          ? part
          : part + " ".repeat(Math.max(0, (widths[i] ?? 0) - visibleWidth(plain[i] ?? ""))),
      )
      .join(" ".repeat(GAP))
      .trimEnd();
  const headers = columns.map((column) => column.header);
  const lines = [line(headers.map(header), headers)];
  cells.forEach((row, r) => {
    lines.push(
      line(
        row.map((text, i) => {
          const style = columns[i]?.style;
          return style ? style(text, rows[r] as Row) : text;
        }),
        row,
      ),
    );
  });
  return lines;
}

/**
 * `key  value` lines with the keys padded to one width. A value longer than `width` (the
 * columns the lines may take) wraps, each further line indented to where the values start.
 */
export function formatPairs(
  pairs: readonly (readonly [string, string])[],
  key: (t: string) => string = (t) => t,
  width = Number.POSITIVE_INFINITY,
): string[] {
  const keyWidth = Math.max(0, ...pairs.map(([name]) => visibleWidth(name)));
  const hang = keyWidth + GAP;
  return pairs.flatMap(([name, value]) => {
    const head = `${key(name)}${" ".repeat(keyWidth - visibleWidth(name))}${" ".repeat(GAP)}`;
    // However wide the keys, a value keeps room for a few words a line.
    const room = Math.max(width - hang, MIN_VALUE);
    const [first = "", ...rest] = Number.isFinite(room) ? wrapText(value, room) : value.split("\n");
    return [`${head}${first}`.trimEnd(), ...rest.map((part) => `${" ".repeat(hang)}${part}`)];
  });
}
