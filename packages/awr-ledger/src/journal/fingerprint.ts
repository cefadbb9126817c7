import { createHash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted by UTF-16 code unit order, no whitespace, `undefined`
 * members dropped (as JSON.stringify drops them), arrays kept in order. Two argument objects
 * that mean the same JSON therefore always produce the same text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(",")}}`;
}

/**
 * The request journal's fingerprint: SHA-256, hex, of the canonical JSON
 * of `{tool, arguments}` where `arguments` is the tool input without `project`.
 */
export function requestFingerprint(tool: string, input: Readonly<Record<string, unknown>>): string {
  const { project: _project, ...args } = input;
  return createHash("sha256")
    .update(canonicalJson({ tool, arguments: args }))
    .digest("hex");
}
