import { accessSync, constants, existsSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Node, Pair, Scalar, YAMLMap } from "yaml";
import { LedgerError } from "../errors.js";
import { yamlModule } from "../internal/lazy-dependencies.js";
import { type LedgerMapping, ledgerMapping } from "./adapters/ledger-mapping.js";
import { confineSourcePath, resolveAuthorizedRoots } from "./confinement.js";
import { fingerprintBytes } from "./fingerprint.js";
import { editLedgerText, type LedgerTextEdit } from "./ledger-text-edit.js";
import { loadManifest, MANIFEST_PATH } from "./read-sources.js";
import { readSourceFileSync } from "./source-file.js";
import { decodeSource } from "./text-bytes.js";

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
  /** Size and mtime of the file as written (what a stale check compares). */
  size: number;
  mtime_ms: number;
}

const FIELDS = ["status", "next_action", "blocker"] as const;
const PLAIN_SAFE = /^[\p{L}\p{N}_][\p{L}\p{N} _.,/()@+-]*$/u;
const RESERVED = /^(?:true|false|yes|no|on|off|null|~|y|n)$/i;
/** The largest ledger file the write-back reads; a larger one is refused before any write. */
const MAX_BYTES = 16 * 1024 * 1024;

/** A scalar value the editor writes: text, a finite number, a boolean, or null. */
export type EditValue = string | number | boolean | null;

function render(value: EditValue, original: Scalar | undefined): string {
  if (value === null) return "null";
  if (typeof value !== "string") return String(value);
  const { Scalar } = yamlModule();
  if (original?.type === Scalar.QUOTE_SINGLE) return `'${value.replaceAll("'", "''")}'`;
  if (original?.type === Scalar.QUOTE_DOUBLE) return JSON.stringify(value);
  const plain =
    PLAIN_SAFE.test(value) && !RESERVED.test(value) && !value.endsWith(" ") && !/ #|: /.test(value);
  return plain ? value : JSON.stringify(value);
}

/** A replacement of the text range [start, end) (text offsets of the decoded file). */
interface Edit {
  start: number;
  end: number;
  text: string;
}

function conflict(path: string, message: string, details: Record<string, unknown> = {}): never {
  throw new LedgerError("SourceConflict", `${message}; edit ${path} by hand and reindex.`, {
    path,
    ...details,
  });
}

/**
 * Refuses to write into a source file the user made read-only: one with no write permission
 * bit at all (`chmod a-w`, mode 0444; checked on the mode, since a privileged user may write
 * anyway), or one this process may not write. The write-back replaces the file through a
 * rename, which only needs the directory to be writable and would otherwise replace a file its
 * owner protected. Checked before anything is written, so the refusal changes nothing.
 */
function refuseReadOnly(absolute: string, label: string): void {
  const mode = statSync(absolute).mode & 0o777;
  let writable = (mode & 0o222) !== 0;
  if (writable) {
    try {
      accessSync(absolute, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS") throw error;
      writable = false;
    }
  }
  if (writable) return;
  const octal = mode.toString(8).padStart(4, "0");
  throw new LedgerError(
    "RuleViolation",
    `${label} is read-only (mode ${octal}), so AWR does not write the work transition back into it; nothing was changed. Make it writable (chmod u+w ${label}) and retry, or edit the work item there by hand and reindex.`,
    { path: label, mode: octal },
  );
}

/** The source's mapping (field_map, status_map) and authorized roots, from the manifest. */
function sourceSetup(
  root: string,
  sourcePath: string,
): { mapping: LedgerMapping; authorized: string[] } {
  if (!existsSync(join(root, MANIFEST_PATH))) return { mapping: ledgerMapping({}), authorized: [] };
  const { manifest } = loadManifest(root);
  const source = manifest.sources.find(
    (s) => s.path === sourcePath || s.path.replace(/^\.\//, "") === sourcePath,
  );
  if (source?.adapter === "yaml-workstream-ledger-v1") {
    // A workstream ledger is read-only for AWR: its work changes only by editing the file.
    throw new LedgerError(
      "Unsupported",
      `${sourcePath} is a yaml-workstream-ledger-v1 ledger, which AWR never writes; edit the work item there and reindex.`,
      { path: sourcePath },
    );
  }
  return {
    mapping: ledgerMapping(source?.options ?? {}),
    authorized: resolveAuthorizedRoots(root, manifest.project.authorized_roots),
  };
}

/** A source file as a planned edit starts from it, with its mapping, path and current bytes. */
interface ReviewedSource {
  mapping: LedgerMapping;
  relative: string;
  absolute: string;
  bytes: Buffer;
  /** The fingerprint of `bytes`, which is the reviewed one. */
  actual: string;
}

/**
 * Reads the source a planned edit changes: confined to the authorized roots, refused with
 * SourceConflict when its bytes are no longer the reviewed `expectedFingerprint`, and with
 * RuleViolation when the file is read-only.
 */
function readReviewedSource(
  root: string,
  sourcePath: string,
  expectedFingerprint: string,
): ReviewedSource {
  const { mapping, authorized } = sourceSetup(root, sourcePath);
  const { relative, absolute } = confineSourcePath(root, sourcePath, authorized);
  const read = readSourceFileSync(absolute, relative, MAX_BYTES);
  const bytes = read?.bytes ?? Buffer.alloc(0);
  const actual = fingerprintBytes(bytes);
  if (actual !== expectedFingerprint) {
    throw new LedgerError(
      "SourceConflict",
      `${relative} changed since it was indexed; reindex (awr source reindex), review the change, and retry.`,
      { path: relative, expected: expectedFingerprint, actual },
    );
  }
  refuseReadOnly(absolute, relative);
  return { mapping, relative, absolute, bytes, actual };
}

/** The work item `key` of a ledger document: in a `work_items` list or keyed map. */
function findItem(contents: YAMLMap, key: string, mapping: LedgerMapping): YAMLMap | undefined {
  const { isMap, isSeq } = yamlModule();
  const items = contents.get("work_items", true) as Node | undefined;
  const idField = mapping.sourceField("id");
  if (isSeq(items)) {
    return items.items.find((i): i is YAMLMap => {
      if (!isMap(i)) return false;
      const id = i.get(idField) ?? i.get("external_key");
      return id !== undefined && String(id) === key;
    });
  }
  if (isMap(items)) {
    const pair = (items.items as Pair<Node, Node | null>[]).find(
      (p) => String((p.key as Node | null)?.toJSON?.() ?? p.key) === key,
    );
    return isMap(pair?.value) ? (pair.value as YAMLMap) : undefined;
  }
  return undefined;
}

/**
 * Changes status / next_action / blocker of ONE work item of a yaml-ledger-v1 file in place, on
 * its bytes: each new value replaces exactly the old value's byte range (taken from the yaml
 * document nodes), a missing field is added as a new line after the item's last field (with
 * that line's own line ending), and every other byte of the file stays identical: invalid UTF-8,
 * a BOM, CRLF and mixed line endings outside the changed values survive. The item may be in a
 * `work_items` list or keyed map; the source's `field_map` and `status_map` are honoured.
 * Refused with SourceConflict, before anything is written, when the file's fingerprint is not
 * `expectedFingerprint` (it changed since it was indexed) or a value cannot be edited safely
 * (a block scalar, an alias, an anchored or tagged node, a multi-line value, a collection).
 * The write is atomic (temp + rename) and keeps the file's permissions; a file made read-only
 * is refused with RuleViolation naming it and the fix, before anything is written.
 */
export function writeBackWorkItem(
  root: string,
  sourcePath: string,
  workKey: string,
  changes: WorkItemChanges,
  expectedFingerprint: string,
): WriteBackResult {
  const given: Record<string, string | null> = {};
  for (const field of FIELDS) {
    const value = changes[field];
    if (field in changes && value !== undefined) given[field] = value;
  }
  const plan = planWorkItemEdit(root, sourcePath, workKey, given, expectedFingerprint, {
    rewriteSame: true,
  });
  const written = writePlannedEdit(plan);
  return { ...written, changed: FIELDS.filter((f) => changes[f] !== undefined) };
}

/**
 * The text fields of a work item the reviewed source changes may set through this editor (the
 * transition fields, and the plain-text planning fields): each a single-line scalar, rewritten
 * in place. Lists are not this editor's.
 */
export const EDITABLE_TEXT_FIELDS = [
  "status",
  "next_action",
  "blocker",
  "title",
  "summary",
  "priority",
  "kind",
  "milestone",
  "goal",
] as const;

/** The scalar fields of a work item this editor writes that are not text: booleans and numbers. */
export const EDITABLE_SCALAR_FIELDS = {
  required: "boolean",
  required_for_v1: "boolean",
  score: "number",
} as const;

/** A planned in-place edit of one work item: the file's bytes before and after, nothing written. */
export interface WorkItemEditPlan {
  /** The source path relative to the project root. */
  path: string;
  absolute: string;
  before: Buffer;
  after: Buffer;
  before_fingerprint: string;
  after_fingerprint: string;
  /** The fields (our names) whose value the edit changes; empty: the item already reads so. */
  changed: string[];
  /** Each given field's value in the source before the edit (null when absent). */
  previous: Record<string, unknown>;
}

/**
 * Plans the in-place edit of ONE work item's text fields (our field names; null writes `null`)
 * exactly as writeBackWorkItem writes it, without writing: the same refusals (SourceConflict when
 * the file's fingerprint is not `expectedFingerprint` or a value cannot be edited safely, NotFound
 * for an unknown item, RuleViolation for a read-only file), and the bytes it would write. A field
 * that already has its value is left alone (its bytes too) unless `rewriteSame`.
 */
export function planWorkItemEdit(
  root: string,
  sourcePath: string,
  workKey: string,
  changes: Readonly<Record<string, EditValue>>,
  expectedFingerprint: string,
  options: { rewriteSame?: boolean } = {},
): WorkItemEditPlan {
  const { mapping, relative, absolute, bytes, actual } = readReviewedSource(
    root,
    sourcePath,
    expectedFingerprint,
  );
  const decoded = decodeSource(bytes);
  const text = decoded.text;
  const { isMap, isScalar, isAlias, parseDocument, Scalar } = yamlModule();
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    throw new LedgerError(
      "InvalidInput",
      `${relative} is not a readable work ledger; fix it and reindex.`,
      {
        path: relative,
      },
    );
  }
  const item = findItem(doc.contents, workKey, mapping);
  if (item === undefined) {
    throw new LedgerError(
      "NotFound",
      `Work item ${workKey} is not in ${relative}; reindex and check the id.`,
      {
        work: workKey,
        path: relative,
      },
    );
  }
  const edits: Edit[] = [];
  const additions: string[] = [];
  const want: Record<string, EditValue> = {};
  const previous: Record<string, unknown> = {};
  const changed: string[] = [];
  for (const [field, given] of Object.entries(changes)) {
    const name = mapping.sourceField(field);
    const pair = item.items.find((p) => isScalar(p.key) && p.key.value === name) as
      | Pair<Scalar, Node | null>
      | undefined;
    const node = pair?.value ?? undefined;
    let value = given;
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new LedgerError("InvalidInput", `${name} of ${workKey} must be a finite number.`, {
        field: name,
      });
    }
    if (field === "status" && typeof value === "string") {
      value = mapping.spelling(
        value,
        isScalar(node) && typeof node.value === "string" ? node.value : null,
      );
    }
    const current = isScalar(node) ? node.value : (node?.toJSON?.() ?? null);
    previous[field] = current ?? null;
    want[name] = value;
    const same = current === value || (current === undefined && value === null);
    if (!same) changed.push(field);
    if (same && options.rewriteSame !== true) continue;
    if (node?.range) {
      if (isAlias(node) || !isScalar(node))
        conflict(relative, `${name} of ${workKey} is not a plain value`, { field: name });
      if (node.anchor !== undefined || node.tag !== undefined) {
        conflict(relative, `${name} of ${workKey} carries an anchor or tag`, { field: name });
      }
      if (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) {
        conflict(relative, `${name} of ${workKey} is a block scalar`, { field: name });
      }
      let [start, end] = node.range;
      while (end > start && (text[end - 1] === "\r" || text[end - 1] === "\n")) end--;
      if (text.slice(start, end).includes("\n")) {
        conflict(relative, `${name} of ${workKey} spans several lines`, { field: name });
      }
      const rendered = render(value, node);
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
      additions.push(`${name}: ${render(value, undefined)}`);
    }
  }
  if (additions.length > 0) edits.push(addFields(text, item, additions));
  const next = edits.length === 0 ? bytes : applyEdits(bytes, decoded.byteOffset, edits);
  verify(next, workKey, want, mapping, relative);
  return {
    path: relative,
    absolute,
    before: bytes,
    after: next,
    before_fingerprint: actual,
    after_fingerprint: fingerprintBytes(next),
    changed,
    previous,
  };
}

/** A planned edit of a whole ledger file, with the editor's list of what changed. */
export interface LedgerFileEditPlan extends WorkItemEditPlan {
  /** The edits that changed the text: each item's key, its operation and the keys written. */
  edits: { external_key: string; operation: string; fields: string[] }[];
  /** The ledger's text before and after (decoded). */
  before_text: string;
  after_text: string;
}

/**
 * Plans `edits` (fields, import, archive) of one yaml-ledger-v1 file through the byte-exact
 * ledger editor, without writing: the same refusals as planWorkItemEdit for the file (its
 * fingerprint must be `expectedFingerprint`, it must be writable and a ledger AWR writes), and
 * the editor's own (see editLedgerText). A file that is not valid UTF-8 is refused, since its
 * bytes could not be kept. `changed` lists the keys of the items whose text changed; no edits
 * at all plans the file as it is.
 */
export function planLedgerTextEdit(
  root: string,
  sourcePath: string,
  edits: readonly LedgerTextEdit[],
  expectedFingerprint: string,
): LedgerFileEditPlan {
  const { mapping, relative, absolute, bytes, actual } = readReviewedSource(
    root,
    sourcePath,
    expectedFingerprint,
  );
  const decoded = decodeSource(bytes);
  if (decoded.invalid_at !== null) {
    conflict(relative, `${relative} is not valid UTF-8 (byte ${decoded.invalid_at})`, {
      invalid_at: decoded.invalid_at,
    });
  }
  const result =
    edits.length === 0
      ? { text: decoded.text, changed: [] }
      : editLedgerText(decoded.text, mapping, edits);
  const after = result.changed.length === 0 ? bytes : Buffer.from(result.text, "utf8");
  if (after.length > MAX_BYTES) {
    throw new LedgerError(
      "BudgetExceeded",
      `${relative} would grow past ${MAX_BYTES} bytes; split the ledger and retry.`,
      { path: relative },
    );
  }
  return {
    path: relative,
    absolute,
    before: bytes,
    after,
    before_fingerprint: actual,
    after_fingerprint: fingerprintBytes(after),
    changed: result.changed.map((c) => c.external_key),
    previous: {},
    edits: result.changed.map((c) => ({ ...c })),
    before_text: decoded.text,
    after_text: result.changed.length === 0 ? decoded.text : result.text,
  };
}

/** The field_map / status_map of the ledger `sourcePath`, as its manifest entry gives them. */
export function ledgerSourceMapping(root: string, sourcePath: string): LedgerMapping {
  return sourceSetup(root, sourcePath).mapping;
}

/**
 * Writes a planned edit: refused with SourceConflict, writing nothing, unless the file still has
 * the plan's `before` bytes; then atomically (temp + rename, keeping the file's permissions).
 */
export function writePlannedEdit(plan: WorkItemEditPlan): WriteBackResult {
  const read = readSourceFileSync(plan.absolute, plan.path, MAX_BYTES);
  const actual = fingerprintBytes(read?.bytes ?? Buffer.alloc(0));
  if (actual !== plan.before_fingerprint) {
    throw new LedgerError(
      "SourceConflict",
      `${plan.path} changed since the edit was planned; nothing was written. Reindex, review the change again, and retry.`,
      { path: plan.path, expected: plan.before_fingerprint, actual },
    );
  }
  refuseReadOnly(plan.absolute, plan.path);
  const mode = statSync(plan.absolute).mode;
  const temp = join(dirname(plan.absolute), `.awr-edit-${process.pid}-${Date.now()}.tmp`);
  writeFileSync(temp, plan.after, { mode });
  renameSync(temp, plan.absolute);
  const stat = statSync(plan.absolute);
  return {
    path: plan.path,
    fingerprint: plan.after_fingerprint,
    previous_fingerprint: plan.before_fingerprint,
    changed: plan.changed,
    size: stat.size,
    mtime_ms: stat.mtimeMs,
  };
}

/** The file's bytes with `edits` applied: every byte outside an edit is copied unchanged. */
function applyEdits(bytes: Buffer, byteOffset: (index: number) => number, edits: Edit[]): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    const start = byteOffset(edit.start);
    parts.push(bytes.subarray(at, start), Buffer.from(edit.text, "utf8"));
    at = byteOffset(edit.end);
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

/** Refuses (MutationConflict) a result that does not read back with exactly the new values. */
function verify(
  next: Buffer,
  workKey: string,
  want: Record<string, EditValue>,
  mapping: LedgerMapping,
  path: string,
): void {
  const { isMap, parseDocument } = yamlModule();
  const check = parseDocument(decodeSource(next).text);
  const written = isMap(check.contents) ? findItem(check.contents, workKey, mapping) : undefined;
  for (const [field, value] of Object.entries(want)) {
    if (check.errors.length > 0 || (written?.get(field) ?? null) !== value) {
      throw new LedgerError(
        "MutationConflict",
        `Could not rewrite ${field} of ${workKey} in ${path} safely; edit it by hand and reindex.`,
        { path, field },
      );
    }
  }
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
  // Insert after the line holding the end of the item's last value, with that line's ending.
  const eol = text.indexOf("\n", Math.max(lastEnd - 1, 0));
  const ending = eol > 0 && text[eol - 1] === "\r" ? "\r\n" : "\n";
  const at = eol === -1 ? text.length : eol + 1;
  const pad = " ".repeat(column);
  const lead = eol === -1 ? ending : "";
  return { start: at, end: at, text: `${lead}${lines.map((l) => `${pad}${l}${ending}`).join("")}` };
}
