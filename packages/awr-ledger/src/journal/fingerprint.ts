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
 * The request journal's record of a request: `arguments`, the canonical JSON of the tool input
 * without `project`, and `fingerprint`, SHA-256 (hex) of the canonical JSON of
 * `{tool, arguments}` (built from the same text: "arguments" sorts before "tool").
 */
export function journalRequest(
  tool: string,
  input: Readonly<Record<string, unknown>>,
): { arguments: string; fingerprint: string } {
  const { project: _project, ...args } = input;
  const argumentsJson = canonicalJson(args);
  const fingerprint = createHash("sha256")
    .update(`{"arguments":${argumentsJson},"tool":${canonicalJson(tool)}}`)
    .digest("hex");
  return { arguments: argumentsJson, fingerprint };
}

/** The request journal's fingerprint (journalRequest). */
export function requestFingerprint(tool: string, input: Readonly<Record<string, unknown>>): string {
  return journalRequest(tool, input).fingerprint;
}
