import { stripVTControlCharacters } from "node:util";

/** Width in visible characters: colour sequences take no room on the screen. */
export function visibleWidth(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}

/** Shortens plain text to `max` visible characters, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
}

export interface TableColumn<Row> {
  readonly header: string;
  readonly value: (row: Row) => string;
  /** Longest cell in visible characters before it is cut with an ellipsis (default 60). */
  readonly max?: number;
  /** Colours the already-cut text of a cell (headers are never coloured here). */
  readonly style?: (text: string, row: Row) => string;
}

/**
 * Left-aligned columns separated by two spaces, a header row first; the last column is not
 * padded. Newlines inside a cell become spaces so a row stays one line.
 */
export function formatTable<Row>(
  rows: readonly Row[],
  columns: readonly TableColumn<Row>[],
  header: (text: string) => string = (text) => text,
): string[] {
  const cells = rows.map((row) =>
    columns.map((column) =>
      truncate(column.value(row).replace(/\s*\n\s*/g, " "), column.max ?? 60),
    ),
  );
  const widths = columns.map((column, i) =>
    Math.max(visibleWidth(column.header), ...cells.map((row) => visibleWidth(row[i] ?? ""))),
  );
  const line = (parts: string[]) =>
    parts
      .map((part, i) =>
        i === parts.length - 1 ? part : part + " ".repeat((widths[i] ?? 0) - visibleWidth(part)),
      )
      .join("  ")
      .trimEnd();
  const lines = [line(columns.map((column) => header(column.header)))];
  cells.forEach((row, r) => {
    lines.push(
      line(
        row.map((text, i) => {
          const style = columns[i]?.style;
          return style ? style(text, rows[r] as Row) : text;
        }),
      ),
    );
  });
  return lines;
}

/** `key  value` lines with the keys padded to one width. */
export function formatPairs(
  pairs: readonly (readonly [string, string])[],
  key: (t: string) => string = (t) => t,
): string[] {
  const width = Math.max(0, ...pairs.map(([name]) => visibleWidth(name)));
  return pairs.map(([name, value]) =>
    `${key(name)}${" ".repeat(width - visibleWidth(name))}  ${value}`.trimEnd(),
  );
}
