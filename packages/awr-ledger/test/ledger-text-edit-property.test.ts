import { describe, expect, it } from "vitest";
import { isLedgerError } from "../src/errors.js";
import { ledgerMapping } from "../src/sources/adapters/ledger-mapping.js";
import type { LedgerValue } from "../src/sources/ledger-text-edit.js";
import { editLedgerText, type LedgerTextEdit } from "../src/sources/ledger-text-edit.js";
import { expectOnlyChanged, itemSpan, ledgerData, recordOf } from "./helpers/ledger-edit.js";

// Property: over generated ledgers in many styles (LF or CRLF, list or keyed map, block and
// flow items, quoted and plain scalars, comments, block scalars, CJK), a chain of random edits
// changes only the edited item's characters each time and reads back as exactly the intended
// data; the only refusals are the documented ones (a list with comments inside).

/** A small seeded generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLAIN = ["整理需求", "write docs", "P0", "路线图 v2", "docs/设计.md", "审核-通过"];
const TEXTS = [
  ...PLAIN,
  "with: colon",
  "hash # inside",
  "'single'",
  '"double"',
  "true",
  "123",
  "- dash",
  "  padded  ",
  "emoji 🚀 ok",
  "a, b",
  "[x]",
  "{y}",
  "null",
  "~",
  "全角：冒号",
  "ends with colon:",
  "@at",
  "`tick`",
  "x".repeat(120),
];
const MULTILINE = ["多行\n文本", "line one\nline two\n", "trailing\n\n"];
const STATUSES = ["draft", "planned", "ready", "in_progress", "blocked", "completed"];

describe("editLedgerText: random edits over generated ledgers", () => {
  it("changes only the edited item and reads back as the intended data", () => {
    const mapping = ledgerMapping({});
    let edits = 0;
    let refusals = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const rand = random(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
      let text = generateLedger(rand, pick);
      let next = 100;
      for (let step = 0; step < 14; step++) {
        const before = ledgerData(text);
        const keys = keysOf(before);
        const edit = randomEdit(rand, pick, keys, () => `NEW-${seed}-${next++}`);
        const target = edit.operation === "import" ? (keys.at(-1) as string) : edit.target;
        let result: ReturnType<typeof editLedgerText>;
        try {
          result = editLedgerText(text, mapping, [edit]);
        } catch (error) {
          const known =
            isLedgerError(error, "SourceConflict") &&
            /comments inside|followed by a comment/.test((error as Error).message);
          if (!known) {
            throw new Error(
              `seed ${seed} step ${step}: ${JSON.stringify(edit)} was refused: ${(error as Error).message}\n${text}`,
            );
          }
          refusals++;
          continue;
        }
        edits++;
        expectOnlyChanged(text, result.text, itemSpan(text, target));
        expect(ledgerData(result.text), `seed ${seed} step ${step}`).toEqual(
          expectedAfter(before, edit),
        );
        if (result.text.includes("\r\n")) {
          expect(result.text.replace(/\r\n/g, "").includes("\n")).toBe(false);
        }
        text = result.text;
      }
    }
    expect(edits).toBeGreaterThan(200);
    expect(refusals).toBeLessThan(edits / 4);
  });
});

function keysOf(data: Record<string, unknown>): string[] {
  const items = data["work_items"];
  if (Array.isArray(items)) return items.map((i) => String((i as { id: unknown }).id));
  return Object.keys(items as object);
}

type Pick = <T>(list: readonly T[]) => T;

function randomValue(rand: () => number, pick: Pick): LedgerValue {
  const r = rand();
  if (r < 0.45) return pick(TEXTS);
  if (r < 0.55) return pick(MULTILINE);
  if (r < 0.65) return Math.floor(rand() * 1000);
  if (r < 0.72) return rand() < 0.5;
  if (r < 0.82) return null;
  const size = Math.floor(rand() * 4);
  return Array.from({ length: size }, () => pick(TEXTS));
}

function randomEdit(
  rand: () => number,
  pick: Pick,
  keys: string[],
  fresh: () => string,
): LedgerTextEdit {
  const r = rand();
  if (r < 0.15) {
    const fields: Record<string, LedgerValue> = {};
    if (rand() < 0.5) fields["acceptance"] = [pick(TEXTS), pick(TEXTS)];
    if (rand() < 0.3) fields["priority"] = pick(["P0", "P1"]);
    return { operation: "import", external_key: fresh(), title: pick(TEXTS), fields };
  }
  const target = pick(keys);
  if (r < 0.3) return { operation: "archive", target, archived: rand() < 0.6 };
  const fields: Record<string, LedgerValue> = {};
  const names = ["next_action", "owner", "summary", "acceptance", "depends_on", "tags", "note"];
  const count = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < count; i++) fields[pick(names)] = randomValue(rand, pick);
  if (rand() < 0.4) fields["status"] = pick(STATUSES);
  if (rand() < 0.2) fields["title"] = pick(TEXTS);
  return { operation: "fields", target, fields };
}

function expectedAfter(
  before: Record<string, unknown>,
  edit: LedgerTextEdit,
): Record<string, unknown> {
  const data = structuredClone(before);
  if (edit.operation === "import") {
    const record: Record<string, unknown> = {
      id: edit.external_key,
      title: edit.title,
      status: "draft",
    };
    for (const [name, value] of Object.entries(edit.fields ?? {})) {
      if (value !== null) record[name] = value;
    }
    const items = data["work_items"];
    if (Array.isArray(items)) items.push(record);
    else (items as Record<string, unknown>)[edit.external_key] = record;
    return data;
  }
  const record = recordOf(data, edit.target);
  if (edit.operation === "archive") {
    if ((record["archived"] === true) !== edit.archived) record["archived"] = edit.archived;
    return data;
  }
  for (const [name, value] of Object.entries(edit.fields)) {
    if (value === null) delete record[name];
    else record[name] = value;
  }
  return data;
}

/** A ledger in a random style. */
function generateLedger(rand: () => number, pick: Pick): string {
  const eol = rand() < 0.5 ? "\r\n" : "\n";
  const keyed = rand() < 0.25;
  const dash = rand() < 0.5 ? "" : "  ";
  const listOffset = rand() < 0.5 ? "" : "  ";
  const quote = (s: string, flow = false): string => {
    const style = rand();
    if (PLAIN.includes(s) && style < 0.6 && !(flow && /[,[\]{}]/.test(s))) return s;
    if (style < 0.8 && !s.includes("\n")) return `'${s.replaceAll("'", "''")}'`;
    return JSON.stringify(s);
  };
  const lines: string[] = [];
  if (rand() < 0.5) lines.push("# 生成的台账 / generated ledger");
  lines.push("schema_version: 1", "work_items:");
  const count = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < count; i++) {
    const key = `K-${i}`;
    if (rand() < 0.2) lines.push(`${keyed ? "  " : dash}# 条目 ${i}`);
    if (!keyed && rand() < 0.2) {
      const deps = rand() < 0.5 ? `, depends_on: [${quote(pick(PLAIN), true)}]` : "";
      lines.push(
        `${dash}- {id: ${key}, title: ${quote(pick(TEXTS), true)}, status: planned${deps}}`,
      );
      continue;
    }
    const pad = keyed ? "    " : `${dash}  `;
    const fields: string[] = [];
    fields.push(`title: ${quote(pick(TEXTS))}${rand() < 0.3 ? "  # 标题" : ""}`);
    fields.push(`status: ${pick(STATUSES)}`);
    if (rand() < 0.5) fields.push(`owner: ${quote(pick(PLAIN))}`);
    if (rand() < 0.6) {
      const entries = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(TEXTS));
      const comment = rand() < 0.2 ? " # 注释" : "";
      fields.push(
        `acceptance:${entries.map((e, n) => `${eol}${pad}${listOffset}- ${quote(e)}${n === 0 ? comment : ""}`).join("")}`,
      );
    }
    if (rand() < 0.5) {
      fields.push(rand() < 0.5 ? "depends_on: []" : `depends_on: [${quote(pick(PLAIN), true)}]`);
    }
    if (rand() < 0.3) fields.push(`summary: |${eol}${pad}  第一行${eol}${pad}  second line`);
    if (rand() < 0.3) fields.push(`next_action: ${quote(pick(TEXTS))} # 下一步`);
    if (keyed) {
      lines.push(`  ${key}:`);
      lines.push(`${pad}id: ${key}`);
      for (const field of fields) lines.push(pad + field);
    } else {
      lines.push(`${dash}- id: ${key}`);
      for (const field of fields) lines.push(pad + field);
    }
    if (rand() < 0.15) lines.push(`${pad}# 条目尾注释`);
  }
  if (rand() < 0.6) lines.push("goals:", "  - id: g1", "    title: 目标一");
  const ending = rand() < 0.8 ? eol : "";
  return lines.join(eol) + ending;
}
