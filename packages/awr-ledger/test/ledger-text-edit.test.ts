import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ledgerMapping } from "../src/sources/adapters/ledger-mapping.js";
import { editLedgerText, type LedgerTextEdit } from "../src/sources/ledger-text-edit.js";
import { expectOnlyChanged, itemSpan, ledgerData, recordOf } from "./helpers/ledger-edit.js";
import { FIXTURES } from "./helpers/projects.js";

const CJK = readFileSync(join(FIXTURES, "ledger-edit", "cjk-crlf-ledger.yaml.txt"), "utf8");
const plain = ledgerMapping({});

function edit(text: string, edits: LedgerTextEdit[], mapping = plain) {
  return editLedgerText(text, mapping, edits);
}

function refused(text: string, edits: LedgerTextEdit[], code: string, pattern: RegExp) {
  let error: unknown;
  try {
    edit(text, edits);
  } catch (e) {
    error = e;
  }
  expect(error, "the edit is refused").toBeDefined();
  expect((error as { code: string }).code).toBe(code);
  expect((error as Error).message).toMatch(pattern);
}

describe("editLedgerText on a CJK ledger with CRLF line endings", () => {
  it("replaces scalars in place, keeping their quote style, comments and line endings", () => {
    const result = edit(CJK, [
      {
        operation: "fields",
        target: "LT-002",
        fields: { title: "设计数据模型（第二版）", next_action: "提交评审", status: "blocked" },
      },
    ]);
    expect(result.changed).toEqual([
      { external_key: "LT-002", operation: "fields", fields: ["title", "next_action", "status"] },
    ]);
    expectOnlyChanged(CJK, result.text, itemSpan(CJK, "LT-002"));
    expect(result.text).toContain("    title: '设计数据模型（第二版）'\r\n");
    expect(result.text).toContain("    next_action: 提交评审 # 周五前\r\n");
    expect(result.text).toContain("    status: blocked\r\n");
    expect(result.text.replace(/\r\n/g, "")).not.toContain("\n");
    const record = recordOf(ledgerData(result.text), "LT-002");
    expect(record).toMatchObject({ title: "设计数据模型（第二版）", status: "blocked" });
  });

  it("removes a field with its line and adds new fields after the item's last one", () => {
    const result = edit(CJK, [
      {
        operation: "fields",
        target: "LT-001",
        fields: { owner: null, priority: "P1", tags: ["需求", "a: b"] },
      },
    ]);
    expectOnlyChanged(CJK, result.text, itemSpan(CJK, "LT-001"));
    expect(result.text).not.toContain("owner: 小王");
    expect(result.text).toContain(
      '    depends_on: []\r\n    priority: P1\r\n    tags:\r\n      - 需求\r\n      - "a: b"\r\n  - id: LT-002',
    );
    const record = recordOf(ledgerData(result.text), "LT-001");
    expect(record["owner"]).toBeUndefined();
    expect(Object.keys(record)).toEqual([
      "id",
      "title",
      "status",
      "acceptance",
      "depends_on",
      "priority",
      "tags",
    ]);
  });

  it("replaces string lists in their own style: block, flow, and an empty list in the file's style", () => {
    const result = edit(CJK, [
      {
        operation: "fields",
        target: "LT-002",
        fields: { depends_on: ["LT-001", "LT-000"], paths: ["docs/模型.md", "src/表.ts"] },
      },
      { operation: "fields", target: "LT-001", fields: { depends_on: ["X-1"] } },
    ]);
    expect(result.text).toContain("    depends_on: [LT-001, LT-000]\r\n");
    expect(result.text).toContain("    paths:\r\n      - docs/模型.md\r\n      - src/表.ts\r\n");
    // An empty `[]` takes the file's block style once it has entries.
    expect(result.text).toContain("    depends_on:\r\n      - X-1\r\n    owner: 小王");
    const data = ledgerData(result.text);
    expect(recordOf(data, "LT-002")["paths"]).toEqual(["docs/模型.md", "src/表.ts"]);
  });

  it("refuses to replace a list that has comments inside, naming the fix", () => {
    refused(
      CJK,
      [{ operation: "fields", target: "LT-001", fields: { acceptance: ["只剩一条"] } }],
      "SourceConflict",
      /acceptance of LT-001 has comments inside.*edit it by hand/,
    );
  });

  it("rewrites a block scalar as a block scalar at its indentation", () => {
    const result = edit(CJK, [
      { operation: "fields", target: "LT-002", fields: { summary: "新的说明\n再补一行\n" } },
    ]);
    expectOnlyChanged(CJK, result.text, itemSpan(CJK, "LT-002"));
    expect(result.text).toContain(
      "    summary: |\r\n      新的说明\r\n      再补一行\r\n    depends_on",
    );
    expect(recordOf(ledgerData(result.text), "LT-002")["summary"]).toBe("新的说明\n再补一行\n");
  });

  it("edits a flow-mapping item inside its braces", () => {
    const result = edit(CJK, [
      {
        operation: "fields",
        target: "LT-003",
        fields: { status: "ready", depends_on: null, owner: "李四", acceptance: ["能回滚"] },
      },
    ]);
    expectOnlyChanged(CJK, result.text, itemSpan(CJK, "LT-003"));
    expect(result.text).toContain(
      "  - {id: LT-003, title: 编写迁移脚本, status: ready, owner: 李四, acceptance: [能回滚]}\r\n",
    );
  });

  it("appends a new item at the end of work_items in the file's style", () => {
    const result = edit(CJK, [
      {
        operation: "import",
        external_key: "LT-005",
        title: "回归测试：全部通过",
        fields: { depends_on: ["LT-004"], priority: "P1" },
      },
    ]);
    expect(result.changed).toEqual([
      {
        external_key: "LT-005",
        operation: "import",
        fields: ["id", "title", "status", "depends_on", "priority"],
      },
    ]);
    const last = itemSpan(CJK, "LT-004");
    expectOnlyChanged(CJK, result.text, last);
    expect(result.text).toContain(
      "    priority: P2\r\n  - id: LT-005\r\n    title: 回归测试：全部通过\r\n    status: draft\r\n    depends_on:\r\n      - LT-004\r\n    priority: P1\r\n    # 末尾注释\r\n",
    );
    const data = ledgerData(result.text);
    expect(recordOf(data, "LT-005")).toEqual({
      id: "LT-005",
      title: "回归测试：全部通过",
      status: "draft",
      depends_on: ["LT-004"],
      priority: "P1",
    });
    expect((data["goals"] as unknown[]).length).toBe(1);
  });

  it("archives and unarchives the way the original marks it (archived: true / false)", () => {
    const archived = edit(CJK, [{ operation: "archive", target: "LT-004", archived: true }]);
    expect(archived.text).toContain("    priority: P2\r\n    archived: true\r\n    # 末尾注释");
    expect(archived.changed).toEqual([
      { external_key: "LT-004", operation: "archive", fields: ["archived"] },
    ]);
    // Already in that state: nothing changes.
    const again = edit(archived.text, [{ operation: "archive", target: "LT-004", archived: true }]);
    expect(again).toEqual({ text: archived.text, changed: [] });
    const back = edit(archived.text, [{ operation: "archive", target: "LT-004", archived: false }]);
    expect(back.text).toContain("    archived: false\r\n");
    expect(recordOf(ledgerData(back.text), "LT-004")["archived"]).toBe(false);
    const never = edit(CJK, [{ operation: "archive", target: "LT-001", archived: false }]);
    expect(never).toEqual({ text: CJK, changed: [] });
  });

  it("refuses a duplicate key, an unknown target and two edits of one item", () => {
    refused(
      CJK,
      [{ operation: "import", external_key: "LT-002", title: "重复" }],
      "SourceConflict",
      /LT-002 is already in the ledger; edit it with a fields edit/,
    );
    refused(
      CJK,
      [{ operation: "fields", target: "LT-404", fields: { status: "ready" } }],
      "SourceConflict",
      /LT-404 is not in the ledger; reindex and check the key/,
    );
    refused(
      CJK,
      [
        { operation: "fields", target: "LT-001", fields: { status: "ready" } },
        { operation: "archive", target: "LT-001", archived: true },
      ],
      "InvalidInput",
      /LT-001 is edited twice; combine its fields into one edit/,
    );
  });

  it("refuses values a ledger cannot hold safely and edits of the identity", () => {
    const set = (fields: Record<string, unknown>) =>
      [{ operation: "fields", target: "LT-001", fields }] as LedgerTextEdit[];
    refused(CJK, set({ summary: "a\u0000b" }), "InvalidInput", /control character/);
    refused(CJK, set({ summary: "\ud800" }), "InvalidInput", /lone surrogate/);
    refused(CJK, set({ priority: Number.NaN }), "InvalidInput", /finite number/);
    refused(CJK, set({ meta: { a: 1 } }), "InvalidInput", /list of strings/);
    refused(CJK, set({ tags: ["a", 1] }), "InvalidInput", /list of strings/);
    refused(CJK, set({ id: "LT-9" }), "InvalidInput", /identity/);
    refused(CJK, set({ title: null }), "InvalidInput", /keeps a title/);
    refused(CJK, set({ status: "finished" }), "InvalidInput", /status of LT-001 must be one of/);
    refused(CJK, set({ "bad key": "x" }), "InvalidInput", /not a plain ledger key/);
    refused(CJK, [], "InvalidInput", /give 1\.\.100 ledger edits/);
  });

  it("quotes what a plain scalar cannot hold and writes numbers and booleans as such", () => {
    const result = edit(CJK, [
      {
        operation: "fields",
        target: "LT-004",
        fields: {
          title: "true",
          priority: 3,
          required: false,
          note: "a: b # c",
          next_action: "多行\n文本",
        },
      },
    ]);
    const record = recordOf(ledgerData(result.text), "LT-004");
    expect(record).toMatchObject({
      title: "true",
      priority: 3,
      required: false,
      note: "a: b # c",
      next_action: "多行\n文本",
    });
    expect(result.text).toContain('    title: "true"\r\n');
    expect(result.text).toContain('    next_action: "多行\\n文本"\r\n');
  });

  it("honours the source's field_map and status_map", () => {
    const text = "work_items:\n  - id: A\n    title: T\n    state: todo\n    next: x\n";
    const mapping = ledgerMapping({
      field_map: { status: "state", next_action: "next" },
      status_map: { todo: "planned", doing: "in_progress" },
    });
    const result = edit(
      text,
      [{ operation: "fields", target: "A", fields: { status: "in_progress", next_action: "y" } }],
      mapping,
    );
    expect(result.text).toBe(
      "work_items:\n  - id: A\n    title: T\n    state: doing\n    next: y\n",
    );
    const created = edit(text, [{ operation: "import", external_key: "B", title: "U" }], mapping);
    expect(created.text).toBe(`${text}  - id: B\n    title: U\n    state: draft\n`);
  });

  it("appends to keyed maps and flow lists, and to a file without a final line break", () => {
    const keyed = "work_items:\n  A:\n    title: T   # keep\n    status: ready\nother: 1";
    const map = edit(keyed, [{ operation: "import", external_key: "B", title: "U" }]);
    expect(map.text).toBe(
      "work_items:\n  A:\n    title: T   # keep\n    status: ready\n  B:\n    id: B\n    title: U\n    status: draft\nother: 1",
    );
    const flow = "work_items: [{id: A, title: T}]\n";
    expect(edit(flow, [{ operation: "import", external_key: "B", title: "U, V" }]).text).toBe(
      'work_items: [{id: A, title: T}, {id: B, title: "U, V", status: draft}]\n',
    );
    const empty = "work_items: []\n";
    expect(edit(empty, [{ operation: "import", external_key: "B", title: "U" }]).text).toBe(
      "work_items: [{id: B, title: U, status: draft}]\n",
    );
    const bare = "work_items:\n- id: A\n  title: T";
    expect(edit(bare, [{ operation: "import", external_key: "B", title: "U" }]).text).toBe(
      "work_items:\n- id: A\n  title: T\n- id: B\n  title: U\n  status: draft\n",
    );
  });

  it("removes the first key of a list entry by moving the next key up after the dash", () => {
    const text =
      "work_items:\n  - owner: o  # who\n    id: A\n    title: T\n  - id: B\n    title: U\n";
    const result = edit(text, [{ operation: "fields", target: "A", fields: { owner: null } }]);
    expect(result.text).toBe("work_items:\n  - id: A\n    title: T\n  - id: B\n    title: U\n");
    const keyed = "work_items:\n  A: {title: T, owner: o, status: ready}\n";
    expect(edit(keyed, [{ operation: "fields", target: "A", fields: { owner: null } }]).text).toBe(
      "work_items:\n  A: {title: T, status: ready}\n",
    );
  });

  it("refuses anchors, aliases and merge keys instead of guessing", () => {
    const anchored = "base: &b {owner: x}\nwork_items:\n  - id: A\n    title: T\n    <<: *b\n";
    refused(
      anchored,
      [{ operation: "fields", target: "A", fields: { status: "ready" } }],
      "SourceConflict",
      /merge key/,
    );
    const aliased = "x: &t hello\nwork_items:\n  - id: A\n    title: *t\n";
    refused(
      aliased,
      [{ operation: "fields", target: "A", fields: { title: "new" } }],
      "SourceConflict",
      /alias/,
    );
    refused(
      "- a\n",
      [{ operation: "archive", target: "A", archived: true }],
      "SourceConflict",
      /mapping/,
    );
  });
});
