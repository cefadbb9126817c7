import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLedgerError } from "../src/errors.js";
import { ledgerMapping } from "../src/sources/adapters/ledger-mapping.js";
import { readYamlLedger } from "../src/sources/adapters/yaml-ledger-v1.js";
import { editLedgerText } from "../src/sources/ledger-text-edit.js";
import {
  expectOnlyChanged,
  itemSpan,
  ledgerData,
  recordOf,
  sharedFixtures,
} from "./helpers/ledger-edit.js";

// The original AWR's real ledgers (shared fixtures outside the repository): every edit changes
// only its item's characters and reads back as exactly the intended data.
const SHARED = sharedFixtures();
const LEDGERS = [
  "awr-real/basic/work-ledger.yaml",
  "awr-real/branch-handoff/work-ledger.yaml",
  "awr-real/awr-self/ledger/work-ledger.yaml",
  "awr-workstreams/ledger/ledger.yaml",
].filter((path) => SHARED !== undefined && existsSync(join(SHARED, path)));

if (LEDGERS.length === 0) {
  console.warn(
    "ledger-text-edit-real: the shared fixtures (shared/fixtures/awr-real, awr-workstreams beside the repository, or AWR_SHARED_FIXTURES) are absent; skipping the real-ledger edits",
  );
}

const mapping = ledgerMapping({});

function keysOf(text: string): string[] {
  const items = ledgerData(text)["work_items"] as { id: string }[];
  return items.map((i) => String(i.id));
}

/** Every item of a small ledger; a spread of a large one (first, last and every seventeenth). */
function sample(keys: string[]): string[] {
  if (keys.length <= 12) return keys;
  return keys.filter((_, i) => i === 0 || i === keys.length - 1 || i % 17 === 4);
}

describe.skipIf(LEDGERS.length === 0)("editLedgerText over the original's real ledgers", () => {
  it.each(LEDGERS)("sets scalars and lists of items in %s, touching nothing else", (path) => {
    const text = readFileSync(join(SHARED as string, path), "utf8");
    for (const key of sample(keysOf(text))) {
      const fields = {
        next_action: `复核 ${key} 的来源：先读 "PLAN.md"`,
        status: "blocked",
        owner: null,
        tags: ["真实台账", "edit: test"],
      };
      const result = editLedgerText(text, mapping, [{ operation: "fields", target: key, fields }]);
      expectOnlyChanged(text, result.text, itemSpan(text, key));
      const before = ledgerData(text);
      const expected = structuredClone(before);
      const record = recordOf(expected, key);
      record["next_action"] = fields.next_action;
      record["status"] = "blocked";
      delete record["owner"];
      record["tags"] = fields.tags;
      expect(ledgerData(result.text)).toEqual(expected);
    }
  });

  it.each(LEDGERS)(
    "replaces each item's acceptance list in %s (or refuses over comments)",
    (path) => {
      const text = readFileSync(join(SHARED as string, path), "utf8");
      let replaced = 0;
      for (const key of sample(keysOf(text))) {
        const acceptance = ["第一条：可复核", "second, with a comma"];
        let result: ReturnType<typeof editLedgerText>;
        try {
          result = editLedgerText(text, mapping, [
            { operation: "fields", target: key, fields: { acceptance } },
          ]);
        } catch (error) {
          expect(isLedgerError(error, "SourceConflict")).toBe(true);
          expect((error as Error).message).toMatch(/comments inside/);
          continue;
        }
        expectOnlyChanged(text, result.text, itemSpan(text, key));
        const expected = structuredClone(ledgerData(text));
        recordOf(expected, key)["acceptance"] = acceptance;
        expect(ledgerData(result.text)).toEqual(expected);
        replaced++;
      }
      expect(replaced, "most lists carry no comments and are replaced").toBeGreaterThan(0);
    },
  );

  it.each(LEDGERS)("archives and unarchives items of %s", (path) => {
    const text = readFileSync(join(SHARED as string, path), "utf8");
    for (const key of sample(keysOf(text)).slice(0, 4)) {
      const archived = editLedgerText(text, mapping, [
        { operation: "archive", target: key, archived: true },
      ]);
      expectOnlyChanged(text, archived.text, itemSpan(text, key));
      expect(recordOf(ledgerData(archived.text), key)["archived"]).toBe(true);
      const back = editLedgerText(archived.text, mapping, [
        { operation: "archive", target: key, archived: false },
      ]);
      expectOnlyChanged(archived.text, back.text, itemSpan(archived.text, key));
      expect(recordOf(ledgerData(back.text), key)["archived"]).toBe(false);
    }
  });

  it.each(LEDGERS)("appends a new item after the last one of %s", (path) => {
    const text = readFileSync(join(SHARED as string, path), "utf8");
    const keys = keysOf(text);
    const last = keys.at(-1) as string;
    const result = editLedgerText(text, mapping, [
      {
        operation: "import",
        external_key: "NEW-任务-1",
        title: "新任务：核对来源",
        fields: { depends_on: [last], acceptance: ["有证据"], priority: "P1" },
      },
    ]);
    expectOnlyChanged(text, result.text, itemSpan(text, last));
    const expected = structuredClone(ledgerData(text));
    (expected["work_items"] as unknown[]).push({
      id: "NEW-任务-1",
      title: "新任务：核对来源",
      status: "draft",
      depends_on: [last],
      acceptance: ["有证据"],
      priority: "P1",
    });
    expect(ledgerData(result.text)).toEqual(expected);
    expect(keysOf(result.text).at(-1)).toBe("NEW-任务-1");
    // The ledger adapter reads the new item as a draft, with no new issue.
    const context = { path, domain: "ledger", options: {} };
    const read = (t: string) => readYamlLedger(t, context).result;
    const [was, now] = [read(text), read(result.text)];
    expect(now.issues).toEqual(was.issues);
    expect(now.entities.length).toBe(was.entities.length + 1);
    expect(JSON.stringify(now.entities.at(-1))).toContain('"draft"');
    // A second import of the same key is refused.
    expect(() =>
      editLedgerText(result.text, mapping, [
        { operation: "import", external_key: "NEW-任务-1", title: "again" },
      ]),
    ).toThrow(/already in the ledger/);
  });
});
