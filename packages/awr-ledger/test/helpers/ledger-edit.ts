import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Node,
  parse,
  parseDocument,
  type YAMLMap,
} from "yaml";

/**
 * The shared fixtures (copies of the original AWR's real projects) live outside the repository,
 * in a `shared/fixtures` folder beside it or beside one of its parent folders (a worktree sits
 * one level deeper than the main checkout); AWR_SHARED_FIXTURES names it directly.
 */
export function sharedFixtures(): string | undefined {
  const named = process.env["AWR_SHARED_FIXTURES"];
  if (named !== undefined) return existsSync(named) ? named : undefined;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "shared", "fixtures");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The work item `key` of a ledger's text (list or keyed map), with its text span. */
export function itemSpan(text: string, key: string): { start: number; end: number } {
  const doc = parseDocument(text);
  const items = (doc.contents as YAMLMap).get("work_items", true) as Node;
  let node: Node | undefined;
  let keyNode: Node | undefined;
  if (isSeq(items)) {
    node = (items.items as Node[]).find(
      (i) => isMap(i) && String(i.get("id") ?? i.get("external_key")) === key,
    );
  } else if (isMap(items)) {
    const pair = items.items.find(
      (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key,
    );
    node = pair?.value as Node | undefined;
    keyNode = pair?.key as Node | undefined;
  }
  if (node?.range === undefined || node.range === null) throw new Error(`no item ${key}`);
  const from = keyNode?.range?.[0] ?? node.range[0];
  const start = text.lastIndexOf("\n", from - 1) + 1;
  let end = node.range[1];
  if (end > 0 && text[end - 1] !== "\n") {
    const eol = text.indexOf("\n", end);
    end = eol === -1 ? text.length : eol + 1;
  }
  return { start, end };
}

/** Asserts every character of `before` outside [start, end) is in `after`, unchanged and in place. */
export function expectOnlyChanged(
  before: string,
  after: string,
  span: { start: number; end: number },
): void {
  const tail = before.length - span.end;
  expect(after.length, "the text after the item is still all there").toBeGreaterThanOrEqual(
    span.start + tail,
  );
  expect(after.slice(0, span.start), "every character before the item is unchanged").toBe(
    before.slice(0, span.start),
  );
  expect(after.slice(after.length - tail), "every character after the item is unchanged").toBe(
    before.slice(span.end),
  );
}

/** The ledger's data. */
export function ledgerData(text: string): Record<string, unknown> {
  return parse(text) as Record<string, unknown>;
}

/** The record of work item `key` in ledger data (list or keyed map). */
export function recordOf(data: Record<string, unknown>, key: string): Record<string, unknown> {
  const items = data["work_items"];
  if (Array.isArray(items)) {
    const found = items.find((i) => String(i.id ?? i.external_key) === key);
    if (found === undefined) throw new Error(`no item ${key}`);
    return found as Record<string, unknown>;
  }
  return (items as Record<string, Record<string, unknown>>)[key] as Record<string, unknown>;
}
