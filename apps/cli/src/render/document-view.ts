import type { Colors } from "../output/style.js";
import { formatPairs, formatTable } from "../output/table.js";

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isScalar(value: Json): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** One value as short text: strings bare, lists of scalars comma-joined, other JSON compact. */
export function scalarText(value: Json): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "string") return value === "" ? "-" : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every(isScalar))
    return value.length === 0 ? "-" : value.map(scalarText).join(", ");
  return JSON.stringify(value);
}

/** Columns for a list of objects: keys whose values are scalars (or scalar lists), at most 7. */
function tableKeys(rows: readonly Record<string, Json>[]): string[] {
  const keys: string[] = [];
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (keys.includes(key)) continue;
      if (isScalar(value) || (Array.isArray(value) && value.every(isScalar))) keys.push(key);
    }
  }
  return keys.slice(0, 7);
}

export function labelOf(key: string): string {
  return key.replace(/_/g, " ");
}

/**
 * A readable rendering of any domain JSON: scalar fields as aligned `key  value` lines, lists of
 * objects as tables, nested objects as indented sections. Used for results without a dedicated
 * view, so every command prints something sensible even for fields added later.
 */
export function documentLines(value: Json, colors: Colors, indent = ""): string[] {
  if (!isRecord(value)) return [`${indent}${scalarText(value)}`];
  const lines: string[] = [];
  const pairs: [string, string][] = [];
  const sections: [string, Json][] = [];
  for (const [key, field] of Object.entries(value)) {
    if (isScalar(field) || (Array.isArray(field) && field.every(isScalar) && field.length <= 8)) {
      pairs.push([labelOf(key), scalarText(field)]);
    } else {
      sections.push([key, field]);
    }
  }
  lines.push(
    ...formatPairs(pairs, colors.dim, colors.width - indent.length).map((line) => indent + line),
  );
  for (const [key, field] of sections) {
    lines.push(...sectionLines(key, field, colors, indent));
  }
  return lines;
}

export function sectionLines(key: string, field: Json, colors: Colors, indent = ""): string[] {
  const title = (count?: number) =>
    `${indent}${colors.bold(labelOf(key))}${count === undefined ? "" : colors.dim(` (${count})`)}`;
  if (Array.isArray(field)) {
    if (field.length === 0) return [`${title(0)}  ${colors.dim("none")}`];
    if (field.every(isRecord)) {
      const rows = field as Record<string, Json>[];
      const keys = tableKeys(rows);
      if (keys.length > 0) {
        const table = formatTable(
          rows,
          keys.map((name) => ({
            header: labelOf(name),
            value: (row: Record<string, Json>) => scalarText(row[name]),
            shrink: true,
          })),
          { header: colors.dim, width: colors.width - indent.length - 2 },
        );
        return [title(field.length), ...table.map((line) => `${indent}  ${line}`)];
      }
    }
    return [title(field.length), ...field.map((item) => `${indent}  - ${scalarText(item)}`)];
  }
  if (isRecord(field)) {
    const inner = documentLines(field, colors, `${indent}  `);
    return inner.length === 0 ? [`${title()}  ${colors.dim("none")}`] : [title(), ...inner];
  }
  return [`${title()}  ${scalarText(field)}`];
}
