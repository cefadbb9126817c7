import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import type { Node, Pair, Scalar, YAMLMap } from "yaml";
import { LedgerError } from "../errors.js";
import { yamlModule } from "../internal/lazy-dependencies.js";
import { confineSourcePath } from "./confinement.js";
import { fingerprintBytes } from "./fingerprint.js";

export interface WorkItemChanges {
  status?: string | undefined;
  /** null removes the value (writes `null`). */
  next_action?: string | null | undefined;
  blocker?: string | null | undefined;
}

export interface WriteBackResult {
  path: string;
  /** Fingerprint of the file as written: the new value to record for this source. */
  fingerprint: string;
  previous_fingerprint: string;
  changed: string[];
}

const FIELDS = ["status", "next_action", "blocker"] as const;
const PLAIN_SAFE = /^[A-Za-z_][A-Za-z0-9 _.,/()@+-]*$/;
const RESERVED = /^(?:true|false|yes|no|on|off|null|~|y|n)$/i;

function render(value: string | null, original: Scalar | undefined): string {
  if (value === null) return "null";
  const { Scalar } = yamlModule();
  if (original?.type === Scalar.QUOTE_SINGLE) return `'${value.replaceAll("'", "''")}'`;
  if (original?.type === Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  const plain =
    PLAIN_SAFE.test(value) && !RESERVED.test(value) && !value.endsWith(" ") && !/ #|: /.test(value);
  return plain ? value : JSON.stringify(value);
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Changes status / next_action / blocker of ONE work item of a yaml-ledger-v1 file in place: the
 * new values replace exactly the old values' byte ranges (taken from the yaml document nodes), a
 * missing field is added as a new line after the item's last field, and every other byte of the
 * file stays identical. Refuses with SourceConflict when the file's fingerprint is not
 * `expectedFingerprint` (it changed since it was indexed). The write is atomic (temp + rename).
 */
export function writeBackWorkItem(
  root: string,
  sourcePath: string,
  workKey: string,
  changes: WorkItemChanges,
  expectedFingerprint: string,
): WriteBackResult {
  const { relative, absolute } = confineSourcePath(root, sourcePath);
  const bytes = readFileSync(absolute);
  const actual = fingerprintBytes(bytes);
  if (actual !== expectedFingerprint) {
    throw new LedgerError(
      "SourceConflict",
      `${relative} changed since it was indexed; reindex (awr source reindex), review the change, and retry.`,
      { path: relative, expected: expectedFingerprint, actual },
    );
  }
  const text = bytes.toString("utf8");
  const { isMap, isScalar, isSeq, parseDocument } = yamlModule();
  const doc = parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    throw new LedgerError(
      "InvalidInput",
      `${relative} is not a readable work ledger; fix it and reindex.`,
      { path: relative },
    );
  }
  const items = doc.contents.get("work_items", true) as Node | undefined;
  const item = isSeq(items)
    ? (items.items.find((i) => isMap(i) && String((i as YAMLMap).get("id")) === workKey) as
        | YAMLMap
        | undefined)
    : undefined;
  if (item === undefined) {
    throw new LedgerError(
      "NotFound",
      `Work item ${workKey} is not in ${relative}; reindex and check the id.`,
      { work: workKey, path: relative },
    );
  }
  const edits: Edit[] = [];
  const additions: string[] = [];
  for (const field of FIELDS) {
    if (!(field in changes) || changes[field] === undefined) continue;
    const value = changes[field] as string | null;
    const pair = item.items.find((p) => isScalar(p.key) && p.key.value === field) as
      | Pair<Scalar, Node | null>
      | undefined;
    const node = pair?.value ?? undefined;
    if (node?.range) {
      const [start, end] = node.range;
      const original = isScalar(node) ? node : undefined;
      const rendered = render(value, original);
      edits.push({
        start,
        end,
        text: start === end && text[start - 1] === ":" ? ` ${rendered}` : rendered,
      });
    } else if (pair?.key.range) {
      // `field:` with no value node at all: write right after the key's colon.
      const colon = text.indexOf(":", pair.key.range[1]);
      edits.push({ start: colon + 1, end: colon + 1, text: ` ${render(value, undefined)}` });
    } else {
      additions.push(`${field}: ${render(value, undefined)}`);
    }
  }
  if (additions.length > 0) edits.push(addFields(text, item, additions));
  let next = text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    next = next.slice(0, edit.start) + edit.text + next.slice(edit.end);
  }
  const check = parseDocument(next);
  const after = (check.contents as YAMLMap | null)?.get("work_items") as
    | { items: YAMLMap[] }
    | undefined;
  const written = after?.items.find((i) => String(i.get("id")) === workKey);
  for (const field of FIELDS) {
    const want = changes[field];
    if (want !== undefined && (written?.get(field) ?? null) !== want) {
      throw new LedgerError(
        "MutationConflict",
        `Could not rewrite ${field} of ${workKey} in ${relative} safely; edit it by hand and reindex.`,
        {
          path: relative,
          field,
        },
      );
    }
  }
  const temp = `${absolute}.awr-tmp-${process.pid}`;
  writeFileSync(temp, next, { mode: statSync(absolute).mode });
  renameSync(temp, absolute);
  return {
    path: relative,
    fingerprint: fingerprintBytes(next),
    previous_fingerprint: actual,
    changed: FIELDS.filter((f) => changes[f] !== undefined),
  };
}

function addFields(text: string, item: YAMLMap, lines: string[]): Edit {
  const first = item.items[0]?.key as Node | undefined;
  const last = item.items.at(-1);
  const lastEnd =
    (last?.value as Node | null)?.range?.[1] ??
    (last?.key as Node | undefined)?.range?.[1] ??
    item.range?.[1] ??
    text.length;
  if (item.flow) {
    const close = text.lastIndexOf("}", item.range?.[1] ?? text.length);
    return { start: close, end: close, text: `, ${lines.join(", ")}` };
  }
  const firstStart = first?.range?.[0] ?? 0;
  const column = firstStart - (text.lastIndexOf("\n", firstStart - 1) + 1);
  // Insert after the line holding the end of the item's last value.
  const eol = text.indexOf("\n", Math.max(lastEnd - 1, 0));
  const at = eol === -1 ? text.length : eol + 1;
  const pad = " ".repeat(column);
  const lead = eol === -1 ? "\n" : "";
  return { start: at, end: at, text: `${lead}${lines.map((l) => `${pad}${l}\n`).join("")}` };
}
