import { isDeepStrictEqual } from "node:util";
import type { Document, Node, Pair, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { yamlModule } from "../internal/lazy-dependencies.js";
import type { LedgerMapping } from "./adapters/ledger-mapping.js";
import { WORK_STATUSES } from "./adapters/work-status.js";
import {
  blockList,
  blockScalar,
  flowList,
  type LedgerValue,
  type QuoteStyle,
  renderScalar,
  scalarStyle,
} from "./ledger-text-render.js";
import {
  blockListOffset,
  colonEnd,
  column,
  contentEnd,
  entryDash,
  fileLineEnding,
  hasComment,
  itemMaps,
  lineEnd,
  lineStart,
  pairOrNodeEnd,
  scalarRanges,
} from "./ledger-text-span.js";

export type { LedgerValue } from "./ledger-text-render.js";

/**
 * One edit of a work ledger, in the original's batch vocabulary. Field names are the work
 * fields' canonical names (`next_action`, `acceptance`, ...); the source's `field_map` decides
 * the key written, and a status is written in the source's own spelling (`status_map`).
 *
 * - `fields`: set fields of the item `target`; `null` removes the field, a list of strings
 *   replaces the whole list.
 * - `import`: append a new item `external_key` with `title` (status `draft` unless `fields`
 *   names one) at the end of `work_items`.
 * - `archive`: mark the item archived (`archived: true`) or not (`archived: false`); an item
 *   already in that state is left as it is.
 */
export type LedgerTextEdit =
  | { operation: "fields"; target: string; fields: Readonly<Record<string, LedgerValue>> }
  | {
      operation: "import";
      external_key: string;
      title: string;
      fields?: Readonly<Record<string, LedgerValue>>;
    }
  | { operation: "archive"; target: string; archived: boolean };

/** An edit that changed the text: its item, its operation and the source keys it wrote. */
export interface LedgerTextChange {
  external_key: string;
  operation: LedgerTextEdit["operation"];
  fields: string[];
}

export interface LedgerTextEditResult {
  /** The ledger's new text: every character outside the edited items is the old one. */
  text: string;
  /** The edits that changed something, in order (an edit that changed nothing is left out). */
  changed: LedgerTextChange[];
}

/** A replacement of the text range [start, end). */
interface Splice {
  start: number;
  end: number;
  text: string;
}

/** How the file writes what the editor adds. */
interface FileStyle {
  eol: string;
  quote: QuoteStyle;
  /** New list values: flow (`[a, b]`) or block with the dash this many columns past the key. */
  list: { flow: boolean; offset: number };
}

/** A work item found in the text: its map, and the work_items collection it belongs to. */
interface Located {
  item: YAMLMap;
  /** The map key holding the item when work_items is a keyed map. */
  mapKey: Scalar | undefined;
  /** The item's data as the document gives it. */
  data: Record<string, unknown>;
}

interface Parsed {
  doc: Document;
  root: YAMLMap;
  data: Record<string, unknown>;
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const RESERVED_NAME = /^(?:true|false|yes|no|on|off|null|y|n)$/i;
/** Half of a surrogate pair without its other half (not encodable as UTF-8). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Control characters a ledger value never carries (a tab and a line feed are text).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function invalid(message: string, details?: Record<string, unknown>): never {
  throw new LedgerError("InvalidInput", message, details);
}

function conflict(message: string, details?: Record<string, unknown>): never {
  throw new LedgerError("SourceConflict", message, details);
}

/**
 * Applies `edits`, in order, to a yaml-ledger-v1 ledger's text and returns the new text. Pure:
 * no file is read or written. Each edit changes only the characters of its own item (an import
 * only adds the new item's lines after the last one): a replaced value takes exactly the old
 * value's place (its quote style kept), a removed field takes its lines with it, an added field
 * goes after the item's last field; every other character (comments, blank lines, CRLF, the
 * other items) stays as it was. New text follows the file's own indentation, quoting, list
 * style and line ending. After each edit the text is parsed again and must read as exactly the
 * intended data, else nothing is returned.
 *
 * Refused with InvalidInput: a malformed edit (empty or oversized key or title, an unknown
 * status, a value that is not a string, number, boolean, null or list of strings, a control
 * character, an id change, two edits of one item). With SourceConflict: a text that is not a
 * readable ledger, an unknown target, an import whose key is already used, and any place the
 * editor cannot change exactly (an anchor, alias or tag, a merge key, a collection with
 * comments inside). Every message names the problem and the fix.
 */
export function editLedgerText(
  text: string,
  mapping: LedgerMapping,
  edits: readonly LedgerTextEdit[],
): LedgerTextEditResult {
  if (edits.length === 0 || edits.length > LIMITS.ledgerEdit.edits) {
    invalid(`give 1..${LIMITS.ledgerEdit.edits} ledger edits; split a larger change`, {
      edits: edits.length,
    });
  }
  const seen = new Set<string>();
  for (const edit of edits) {
    const key = edit.operation === "import" ? edit.external_key : edit.target;
    checkKey(key);
    if (seen.has(key)) {
      invalid(`${key} is edited twice; combine its fields into one edit`, { work: key });
    }
    seen.add(key);
  }
  let current = text;
  const changed: LedgerTextChange[] = [];
  for (const edit of edits) {
    const parsed = parseLedger(current);
    const step =
      edit.operation === "fields"
        ? setFields(current, parsed, mapping, edit.target, edit.fields)
        : edit.operation === "archive"
          ? archive(current, parsed, mapping, edit.target, edit.archived)
          : importItem(current, parsed, mapping, edit);
    if (step === undefined) continue;
    const next = applySplices(current, step.splices);
    verify(next, step.expected, step.key);
    current = next;
    changed.push({ external_key: step.key, operation: edit.operation, fields: step.fields });
  }
  return { text: current, changed };
}

interface Step {
  key: string;
  fields: string[];
  splices: Splice[];
  expected: Record<string, unknown>;
}

function byteLength(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

function checkKey(key: string): void {
  if (typeof key !== "string" || key.trim() === "") invalid("a work key must not be empty");
  if (byteLength(key) > LIMITS.ledgerEdit.keyBytes || CONTROL.test(key) || /\n|\t/.test(key)) {
    invalid(
      `work key ${JSON.stringify(key.slice(0, 64))} must be at most ${LIMITS.ledgerEdit.keyBytes} bytes on one line without control characters`,
    );
  }
  if (LONE_SURROGATE.test(key))
    invalid("a work key must be well-formed Unicode (no lone surrogate)");
}

function checkString(value: string, what: string): void {
  if (LONE_SURROGATE.test(value)) {
    invalid(`${what} has a lone surrogate, which no YAML file can hold; send well-formed text`);
  }
  if (CONTROL.test(value)) {
    invalid(
      `${what} has a control character (other than tab and line feed), which a ledger does not hold safely; remove it`,
    );
  }
}

/** Validates one edit's field values, returning them keyed by the source keys to write. */
function checkFields(
  fields: Readonly<Record<string, LedgerValue>>,
  mapping: LedgerMapping,
  work: string,
): [string, string, LedgerValue][] {
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    invalid(`fields of ${work} must be an object of field names and values`);
  }
  if (byteLength(JSON.stringify(fields)) > LIMITS.ledgerEdit.fieldsBytes) {
    invalid(
      `fields of ${work} exceed ${LIMITS.ledgerEdit.fieldsBytes} bytes as JSON; keep long text in a document and link it`,
    );
  }
  const out: [string, string, LedgerValue][] = [];
  const written = new Set<string>();
  for (const [field, value] of Object.entries(fields)) {
    const name = mapping.sourceField(field);
    if (!FIELD_NAME.test(name) || RESERVED_NAME.test(name)) {
      invalid(
        `field name ${JSON.stringify(name)} of ${work} is not a plain ledger key; use letters, digits, _ and -`,
        { field },
      );
    }
    if (written.has(name)) invalid(`${work} writes ${name} twice; give it once`, { field });
    written.add(name);
    if (field === "id" || field === "external_key" || name === mapping.sourceField("id")) {
      invalid(
        `${work}: the work key (${name}) is its identity and is not edited; import a new item instead`,
        {
          field,
        },
      );
    }
    if (
      field === "title" &&
      (value === null || (typeof value === "string" && value.trim() === ""))
    ) {
      invalid(`${work}: a work item keeps a title; give a non-empty one`, { field });
    }
    if (typeof value === "string") checkString(value, `${field} of ${work}`);
    else if (typeof value === "number") {
      if (!Number.isFinite(value)) invalid(`${field} of ${work} must be a finite number`);
    } else if (Array.isArray(value)) {
      if (value.length > LIMITS.listItems) {
        invalid(`${field} of ${work} has more than ${LIMITS.listItems} items; shorten it`);
      }
      for (const item of value as unknown[]) {
        if (typeof item !== "string") {
          invalid(`${field} of ${work} must be a list of strings; write each entry as text`, {
            field,
          });
        }
        checkString(item, `an entry of ${field} of ${work}`);
      }
    } else if (value !== null && typeof value !== "boolean") {
      invalid(
        `${field} of ${work} must be a string, number, boolean, null (to remove it) or a list of strings`,
        { field },
      );
    }
    if (field === "status" && value !== null) {
      if (typeof value !== "string" || mapping.status(value) === undefined) {
        invalid(`status of ${work} must be one of ${WORK_STATUSES.join("|")}`, { field });
      }
    }
    out.push([field, name, value]);
  }
  return out;
}

function parseLedger(text: string): Parsed {
  const { isMap, parseDocument } = yamlModule();
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const error = doc.errors[0];
  if (error !== undefined) {
    conflict(
      `the ledger is not valid YAML (${error.message.split("\n")[0]}); fix the file, reindex and retry`,
    );
  }
  if (!isMap(doc.contents)) {
    conflict("the ledger is not a YAML mapping with work_items:; fix the file and retry");
  }
  let data: Record<string, unknown>;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  } catch (cause) {
    conflict(`the ledger cannot be read as data (${(cause as Error).message}); fix the file`);
  }
  return { doc, root: doc.contents as YAMLMap, data };
}

/** The work_items collection: a list or a keyed map, block or flow. */
function workItems(parsed: Parsed): YAMLSeq | YAMLMap {
  const { isMap, isSeq } = yamlModule();
  const node = parsed.root.get("work_items", true) as Node | undefined;
  if (isSeq(node) || isMap(node)) {
    refuseProperties(node, "work_items");
    return node;
  }
  return conflict(
    "the ledger has no work_items list or keyed map; add `work_items: []` to it and retry",
  );
}

function refuseProperties(node: Node | null | undefined, what: string): void {
  const { isAlias } = yamlModule();
  if (node === null || node === undefined) return;
  if (isAlias(node)) conflict(`${what} is a YAML alias; write it out in the file by hand`);
  if (node.anchor !== undefined || node.tag !== undefined) {
    conflict(`${what} carries a YAML anchor or tag; edit it in the file by hand`);
  }
}

/** The item `key`, or undefined; two items with that key are a conflict. */
function locate(parsed: Parsed, mapping: LedgerMapping, key: string): Located | undefined {
  const { isMap, isPair, isScalar } = yamlModule();
  const items = workItems(parsed);
  const idField = mapping.sourceField("id");
  const externalField = mapping.sourceField("external_key");
  const found: Located[] = [];
  const list = parsed.data["work_items"];
  (items.items as unknown[]).forEach((entry, index) => {
    if (isPair(entry)) {
      const mapKey = entry.key as Node;
      const name = isScalar(mapKey) ? String(mapKey.value) : undefined;
      if (name !== key) return;
      const value = entry.value as Node | null;
      if (!isMap(value)) conflict(`work item ${key} is not a mapping; fix the file by hand`);
      const data = (list as Record<string, unknown>)[key] as Record<string, unknown>;
      found.push({ item: value, mapKey: mapKey as Scalar, data });
      return;
    }
    if (!isMap(entry)) return;
    const id = entry.get(idField) ?? entry.get(externalField);
    if (id === undefined || id === null || String(id) !== key) return;
    found.push({
      item: entry,
      mapKey: undefined,
      data: (list as unknown[])[index] as Record<string, unknown>,
    });
  });
  if (found.length > 1) {
    conflict(`the ledger holds work item ${key} ${found.length} times; give each its own id`, {
      work: key,
    });
  }
  const hit = found[0];
  if (hit !== undefined) {
    refuseProperties(hit.item, `work item ${key}`);
    for (const pair of hit.item.items as Pair<Node, Node | null>[]) {
      const name = (pair.key as Scalar | null)?.value;
      if (name === "<<") conflict(`work item ${key} uses a merge key (<<); write it out by hand`);
      if (!isScalar(pair.key)) conflict(`work item ${key} has a complex key; edit it by hand`);
    }
  }
  return hit;
}

function notFound(key: string): never {
  return conflict(
    `work item ${key} is not in the ledger; reindex and check the key, or import it as a new item`,
    { work: key },
  );
}

/** The file's conventions, taken from its work items (the target first). */
function fileStyle(text: string, parsed: Parsed, target?: YAMLMap): FileStyle {
  const { isScalar, isSeq, Scalar: ScalarClass } = yamlModule();
  const items = workItems(parsed);
  const maps = itemMaps(items);
  const order = target === undefined ? maps : [target, ...maps.filter((m) => m !== target)];
  const counts = { plain: 0, single: 0, double: 0 };
  let list: FileStyle["list"] | undefined;
  for (const map of order) {
    for (const pair of map.items as Pair<Node, Node | null>[]) {
      const value = pair.value;
      if (isScalar(value) && typeof value.value === "string") {
        if (value.type === ScalarClass.QUOTE_SINGLE) counts.single++;
        else if (value.type === ScalarClass.QUOTE_DOUBLE) counts.double++;
        else counts.plain++;
      }
      if (list === undefined && isSeq(value) && value.items.length > 0) {
        list = value.flow
          ? { flow: true, offset: 2 }
          : { flow: false, offset: blockListOffset(text, pair.key as Node, value) };
      }
    }
  }
  const quote: QuoteStyle =
    counts.double > counts.plain && counts.double >= counts.single
      ? "double"
      : counts.single > counts.plain
        ? "single"
        : "plain";
  return { eol: fileLineEnding(text), quote, list: list ?? { flow: false, offset: 2 } };
}

/** A whole value (scalar or list) in a flow collection. */
function flowValue(value: LedgerValue, style: QuoteStyle): string {
  return Array.isArray(value)
    ? flowList(value as string[], style)
    : renderScalar(value as string | number | boolean | null, style, true);
}

/** `name: value` for a new field of a block map whose keys start at `indent`. */
function blockField(name: string, value: LedgerValue, indent: number, style: FileStyle): string {
  if (!Array.isArray(value)) {
    return `${name}: ${renderScalar(value as string | number | boolean | null, style.quote, false)}`;
  }
  const items = value as string[];
  if (items.length === 0 || style.list.flow) return `${name}: ${flowList(items, style.quote)}`;
  return `${name}:${blockList(items, style.quote, " ".repeat(indent + style.list.offset), style.eol)}`;
}

function applySplices(text: string, splices: Splice[]): string {
  // From the end, so earlier offsets stay valid; an insertion at an offset goes before a
  // replacement that ends there.
  const ordered = [...splices].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let boundary = text.length;
  for (const splice of ordered) {
    if (splice.end > boundary) conflict("two changes of one item overlap; edit the item by hand");
    out = out.slice(0, splice.start) + splice.text + out.slice(splice.end);
    boundary = splice.start;
  }
  return out;
}

function verify(next: string, expected: Record<string, unknown>, key: string): void {
  let actual: unknown;
  try {
    actual = parseLedger(next).data;
  } catch {
    actual = undefined;
  }
  if (!isDeepStrictEqual(actual, expected)) {
    conflict(
      `work item ${key} cannot be changed in place without changing other data of the ledger; edit it in the file by hand and reindex`,
      { work: key },
    );
  }
}

/** The expected data after the edit: the old data with the item's record changed. */
function expectWith(
  parsed: Parsed,
  located: Located,
  key: string,
  change: (record: Record<string, unknown>) => void,
): Record<string, unknown> {
  const expected = structuredClone(parsed.data);
  const list = expected["work_items"] as Record<string, unknown>[] | Record<string, unknown>;
  const record = Array.isArray(list)
    ? list[(parsed.data["work_items"] as unknown[]).indexOf(located.data)]
    : (list as Record<string, unknown>)[key];
  change(record as Record<string, unknown>);
  return expected;
}

function setFields(
  text: string,
  parsed: Parsed,
  mapping: LedgerMapping,
  target: string,
  fields: Readonly<Record<string, LedgerValue>>,
): Step | undefined {
  const checked = checkFields(fields, mapping, target);
  const located = locate(parsed, mapping, target) ?? notFound(target);
  const wanted: [string, LedgerValue][] = [];
  for (const [field, name, value] of checked) {
    let written = value;
    if (field === "status" && typeof value === "string") {
      const now = located.data[name];
      written = mapping.spelling(
        mapping.status(value) ?? value,
        typeof now === "string" ? now : null,
      );
    }
    const now = located.data[name];
    if (written === null ? now === undefined : isDeepStrictEqual(now, written)) continue;
    wanted.push([name, written]);
  }
  if (wanted.length === 0) return undefined;
  return {
    key: target,
    fields: wanted.map(([name]) => name),
    splices: itemSplices(text, parsed, located, target, wanted),
    expected: expectWith(parsed, located, target, (record) => {
      for (const [name, value] of wanted) {
        if (value === null) delete record[name];
        else record[name] = Array.isArray(value) ? [...value] : value;
      }
    }),
  };
}

function archive(
  text: string,
  parsed: Parsed,
  mapping: LedgerMapping,
  target: string,
  archived: boolean,
): Step | undefined {
  if (typeof archived !== "boolean") invalid(`archived of ${target} must be true or false`);
  const located = locate(parsed, mapping, target) ?? notFound(target);
  const name = mapping.sourceField("archived");
  if ((located.data[name] === true) === archived) return undefined;
  return {
    key: target,
    fields: [name],
    splices: itemSplices(text, parsed, located, target, [[name, archived]]),
    expected: expectWith(parsed, located, target, (record) => {
      record[name] = archived;
    }),
  };
}

/** The splices that write `wanted` (source keys and values; null removes) into one item. */
function itemSplices(
  text: string,
  parsed: Parsed,
  located: Located,
  key: string,
  wanted: [string, LedgerValue][],
): Splice[] {
  const { isScalar } = yamlModule();
  const { item } = located;
  const style = fileStyle(text, parsed, item);
  const pairs = item.items as Pair<Scalar, Node | null>[];
  const splices: Splice[] = [];
  const added: [string, LedgerValue][] = [];
  for (const [name, value] of wanted) {
    const index = pairs.findIndex((p) => isScalar(p.key) && p.key.value === name);
    const pair = pairs[index];
    if (pair === undefined) {
      if (value !== null) added.push([name, value]);
      continue;
    }
    refuseProperties(pair.value, `${name} of ${key}`);
    if (value === null) splices.push(removal(text, item, index, key, name));
    else splices.push(replacement(text, item, pair, value, style, key, name));
  }
  if (added.length > 0) splices.push(addition(text, item, added, style));
  return splices;
}

/** Replaces the value of an existing pair. */
function replacement(
  text: string,
  item: YAMLMap,
  pair: Pair<Scalar, Node | null>,
  value: LedgerValue,
  style: FileStyle,
  key: string,
  name: string,
): Splice {
  const { isCollection, isScalar, isSeq, Scalar: ScalarClass } = yamlModule();
  const node = pair.value;
  const afterColon =
    colonEnd(text, pair.key) ?? conflict(`${name} of ${key} has no plain key; edit it by hand`);
  const empty = node === null || !node.range || node.range[0] === node.range[1];
  if (empty) {
    const rendered = item.flow
      ? flowValue(value, style.quote)
      : blockField(name, value, column(text, pair.key.range?.[0] ?? 0), style).slice(
          name.length + 1,
        );
    const lead = rendered.startsWith(style.eol) ? "" : " ";
    return { start: afterColon, end: afterColon, text: lead + rendered.trimStart() };
  }
  const start = node.range?.[0] ?? 0;
  const end = contentEnd(text, node);
  if (isCollection(node)) {
    const from = node.flow ? start : afterColon;
    if (hasComment(text, from, lineEnd(text, end), scalarRanges(node))) {
      conflict(
        `${name} of ${key} has comments inside; replacing it would lose them: remove them or edit it by hand`,
        { field: name },
      );
    }
  }
  if (Array.isArray(value)) {
    const items = value as string[];
    // An empty `[]` takes the file's list style once it has entries.
    const emptyFlow = isSeq(node) && node.flow && node.items.length === 0 && !style.list.flow;
    if (emptyFlow && !item.flow && items.length > 0) {
      const pad = " ".repeat(column(text, pair.key.range?.[0] ?? 0) + style.list.offset);
      return { start: afterColon, end, text: blockList(items, style.quote, pad, style.eol) };
    }
    if (item.flow || (isCollection(node) && node.flow) || items.length === 0) {
      if (isCollection(node) && !node.flow) {
        return { start: afterColon, end, text: ` ${flowList(items, style.quote)}` };
      }
      return { start, end, text: flowList(items, style.quote) };
    }
    const offset =
      isSeq(node) && !node.flow ? blockListOffset(text, pair.key, node) : style.list.offset;
    if (!isSeq(node) && style.list.flow) {
      return { start, end, text: flowList(items, style.quote) };
    }
    const pad = " ".repeat(column(text, pair.key.range?.[0] ?? 0) + offset);
    return { start: afterColon, end, text: blockList(items, style.quote, pad, style.eol) };
  }
  const scalar = value as string | number | boolean | null;
  if (isScalar(node)) {
    const block = node.type === ScalarClass.BLOCK_LITERAL || node.type === ScalarClass.BLOCK_FOLDED;
    if (block && typeof scalar === "string") {
      const rendered = blockScalar(text, node, pair.key.range?.[0] ?? 0, scalar, style.eol);
      if (rendered !== undefined) return { start, end, text: rendered };
    }
    const quote = typeof scalar === "string" ? scalarStyle(node, style.quote) : "plain";
    return { start, end, text: renderScalar(scalar, block ? "double" : quote, item.flow === true) };
  }
  // A collection replaced by a scalar.
  const rendered = renderScalar(scalar, style.quote, item.flow === true);
  return isCollection(node) && node.flow
    ? { start, end, text: rendered }
    : { start: afterColon, end, text: ` ${rendered}` };
}

/** Removes the pair at `index` of `item`, with its line(s) in a block map. */
function removal(text: string, item: YAMLMap, index: number, key: string, name: string): Splice {
  const pairs = item.items as Pair<Scalar, Node | null>[];
  const pair = pairs[index] as Pair<Scalar, Node | null>;
  const keyStart = pair.key.range?.[0] ?? 0;
  const end = pairOrNodeEnd(text, pair);
  const next = pairs[index + 1];
  const previous = pairs[index - 1];
  if (item.flow) {
    if (previous !== undefined) {
      return { start: pairOrNodeEnd(text, previous), end, text: "" };
    }
    if (next !== undefined) return { start: keyStart, end: next.key.range?.[0] ?? end, text: "" };
    return { start: keyStart, end, text: "" };
  }
  const start = lineStart(text, keyStart);
  if (text.slice(start, keyStart).trim() === "") {
    return { start, end: lineEnd(text, end), text: "" };
  }
  // The first key of a list entry (`- name: v`): the next key moves up after the dash.
  if (next === undefined) {
    conflict(`${name} is the only field of ${key}; a work item keeps its fields`, { field: name });
  }
  const nextStart = next.key.range?.[0] ?? end;
  // A comment on the pair's own lines goes with it; a comment line of its own would be lost.
  if (hasComment(text, Math.min(lineEnd(text, end), nextStart), nextStart, [])) {
    conflict(
      `${name} of ${key} is followed by a comment that removing it would lose; edit it by hand`,
      { field: name },
    );
  }
  return { start: keyStart, end: nextStart, text: "" };
}

/** Adds new pairs after the item's last pair. */
function addition(
  text: string,
  item: YAMLMap,
  added: [string, LedgerValue][],
  style: FileStyle,
): Splice {
  const pairs = item.items as Pair<Scalar, Node | null>[];
  const last = pairs.at(-1);
  if (item.flow) {
    const range = item.range ?? [0, 0, 0];
    const body = added.map(([name, value]) => `${name}: ${flowValue(value, style.quote)}`);
    if (last === undefined) {
      const close = text.lastIndexOf("}", range[1]);
      return { start: close, end: close, text: body.join(", ") };
    }
    const at = pairOrNodeEnd(text, last);
    return { start: at, end: at, text: `, ${body.join(", ")}` };
  }
  const first = pairs[0] as Pair<Scalar, Node | null>;
  const indent = column(text, first.key.range?.[0] ?? 0);
  const end = pairOrNodeEnd(text, last as Pair<Scalar, Node | null>);
  const at = lineEnd(text, end);
  const lead = at === text.length && !text.endsWith("\n") ? style.eol : "";
  const lines = added
    .map(
      ([name, value]) =>
        `${" ".repeat(indent)}${blockField(name, value, indent, style)}${style.eol}`,
    )
    .join("");
  return { start: at, end: at, text: lead + lines };
}

function importItem(
  text: string,
  parsed: Parsed,
  mapping: LedgerMapping,
  edit: Extract<LedgerTextEdit, { operation: "import" }>,
): Step {
  const { isSeq } = yamlModule();
  const key = edit.external_key;
  if (typeof edit.title !== "string" || edit.title.trim() === "") {
    invalid(`the new item ${key} needs a non-empty title`);
  }
  if (byteLength(edit.title) > LIMITS.ledgerEdit.titleBytes || /\n/.test(edit.title)) {
    invalid(
      `the title of ${key} must be one line of at most ${LIMITS.ledgerEdit.titleBytes} bytes`,
    );
  }
  checkString(edit.title, `the title of ${key}`);
  const extra = checkFields(edit.fields ?? {}, mapping, key);
  if (extra.some(([field]) => field === "title")) {
    invalid(`${key}: give the title once, as title, not also in fields`);
  }
  if (locate(parsed, mapping, key) !== undefined) {
    conflict(
      `work item ${key} is already in the ledger; edit it with a fields edit, or import under another key`,
      { work: key },
    );
  }
  const items = workItems(parsed);
  const record: [string, LedgerValue][] = [
    [mapping.sourceField("id"), key],
    [mapping.sourceField("title"), edit.title],
  ];
  const statusName = mapping.sourceField("status");
  if (!extra.some(([field]) => field === "status")) {
    record.push([statusName, mapping.spelling("draft", null)]);
  }
  for (const [field, name, value] of extra) {
    if (value === null) continue;
    const written =
      field === "status" && typeof value === "string"
        ? mapping.spelling(mapping.status(value) ?? value, null)
        : value;
    record.push([name, written]);
  }
  const style = fileStyle(text, parsed);
  const expected = structuredClone(parsed.data);
  const object = Object.fromEntries(
    record.map(([name, value]) => [name, Array.isArray(value) ? [...value] : value]),
  );
  let splice: Splice;
  if (isSeq(items)) {
    (expected["work_items"] as unknown[]).push(object);
    splice = appendToList(text, items, record, style);
  } else {
    (expected["work_items"] as Record<string, unknown>)[key] = object;
    splice = appendToMap(text, items as YAMLMap, key, record, style);
  }
  return { key, fields: record.map(([name]) => name), splices: [splice], expected };
}

function flowRecord(record: [string, LedgerValue][], style: FileStyle): string {
  return `{${record.map(([name, value]) => `${name}: ${flowValue(value, style.quote)}`).join(", ")}}`;
}

function blockRecord(
  record: [string, LedgerValue][],
  firstPad: string,
  indent: number,
  style: FileStyle,
): string {
  return record
    .map(
      ([name, value], i) =>
        `${i === 0 ? firstPad : " ".repeat(indent)}${blockField(name, value, indent, style)}${style.eol}`,
    )
    .join("");
}

/** Where new lines go after `end`: past its line, with a line break first at a text without one. */
function insertionAfter(text: string, end: number, eol: string): { at: number; lead: string } {
  const at = lineEnd(text, end);
  return { at, lead: at === text.length && !text.endsWith("\n") ? eol : "" };
}

function appendToList(
  text: string,
  items: YAMLSeq,
  record: [string, LedgerValue][],
  style: FileStyle,
): Splice {
  const { isMap } = yamlModule();
  const entries = items.items as Node[];
  const last = entries.at(-1);
  if (items.flow) {
    const body = flowRecord(record, style);
    if (last === undefined) {
      const close = text.lastIndexOf("]", items.range?.[1] ?? text.length);
      return { start: close, end: close, text: body };
    }
    const at = contentEnd(text, last);
    return { start: at, end: at, text: `, ${body}` };
  }
  if (last === undefined) {
    return conflict("work_items is an empty block list; write `work_items: []` and retry");
  }
  const itemStart = last.range?.[0] ?? 0;
  const dash =
    entryDash(text, itemStart) ??
    conflict("the last work item is not written as `- ` at the start of its line; append by hand");
  const dashPad = " ".repeat(column(text, dash));
  const { at, lead } = insertionAfter(text, contentEnd(text, last), style.eol);
  if (isMap(last) && last.flow) {
    return {
      start: at,
      end: at,
      text: `${lead}${dashPad}- ${flowRecord(record, style)}${style.eol}`,
    };
  }
  const indent = column(text, itemStart);
  const firstPad = `${dashPad}-${" ".repeat(Math.max(itemStart - dash - 1, 1))}`;
  return { start: at, end: at, text: lead + blockRecord(record, firstPad, indent, style) };
}

function appendToMap(
  text: string,
  items: YAMLMap,
  key: string,
  record: [string, LedgerValue][],
  style: FileStyle,
): Splice {
  const { isMap } = yamlModule();
  const pairs = items.items as Pair<Scalar, Node | null>[];
  const last = pairs.at(-1);
  const mapKey = renderScalar(key, style.quote, items.flow === true);
  if (items.flow) {
    const body = `${mapKey}: ${flowRecord(record, style)}`;
    if (last === undefined) {
      const close = text.lastIndexOf("}", items.range?.[1] ?? text.length);
      return { start: close, end: close, text: body };
    }
    const at = pairOrNodeEnd(text, last);
    return { start: at, end: at, text: `, ${body}` };
  }
  if (last === undefined) {
    return conflict("work_items is an empty block map; write `work_items: {}` and retry");
  }
  const keyColumn = column(text, last.key.range?.[0] ?? 0);
  const { at, lead } = insertionAfter(text, pairOrNodeEnd(text, last), style.eol);
  const value = last.value;
  if (isMap(value) && value.flow) {
    const line = `${" ".repeat(keyColumn)}${mapKey}: ${flowRecord(record, style)}${style.eol}`;
    return { start: at, end: at, text: lead + line };
  }
  const firstField = isMap(value) ? (value.items[0] as Pair<Scalar> | undefined) : undefined;
  const indent = firstField ? column(text, firstField.key.range?.[0] ?? 0) : keyColumn + 2;
  const pad = " ".repeat(indent);
  return {
    start: at,
    end: at,
    text: `${lead}${" ".repeat(keyColumn)}${mapKey}:${style.eol}${blockRecord(record, pad, indent, style)}`,
  };
}
