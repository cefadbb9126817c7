import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import stringWidth from "string-width";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testProgram } from "../../../scripts/test/test-programs.mjs";
import { demoProject, removeTemps } from "./support/cli-harness.js";

/**
 * Human output measured as a terminal draws it: a CJK character takes two columns. Tables keep
 * their columns aligned by display width and fit the width (COLUMNS here, as the program takes
 * it when stdout is a pipe), the next action is cut only as far as the width needs, and a long
 * value wraps under itself instead of under its label. The program is the test run's bundle of
 * the CLI, writing to a pipe.
 */

/** Titles and a next action in Chinese, written for this test. */
const TITLES: Record<string, string> = {
  "Order storage in PostgreSQL": "订单数据存入关系数据库",
  "Payment through the hosted payment page": "通过托管支付页面完成付款",
  "Import the publisher's catalogue feed": "导入出版社的图书目录",
};
const NEXT_ACTION =
  "先为订单表和订单明细表编写迁移脚本，然后在测试库上验证回滚步骤，最后把结果记录为证据";

let root: string;

beforeAll(async () => {
  root = await demoProject({ init: false });
  const ledger = join(root, "work-ledger.yaml");
  let text = await readFile(ledger, "utf8");
  for (const [english, chinese] of Object.entries(TITLES)) {
    text = text.replace(`title: ${english}`, `title: ${chinese}`);
  }
  text = text.replace(
    "next_action: Write the migration for the orders and order_lines tables",
    `next_action: ${NEXT_ACTION}`,
  );
  await writeFile(ledger, text);
  expect(run(["init", "--accept"], 80).code).toBe(0);
});
afterAll(removeTemps);

function run(words: string[], columns: number): { code: number | null; lines: string[] } {
  const result = spawnSync(process.execPath, [testProgram("awr"), ...words], {
    cwd: root,
    env: { PATH: process.env["PATH"], NO_COLOR: "1", COLUMNS: String(columns) },
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  return { code: result.status, lines: result.stdout.replace(/\n$/, "").split("\n") };
}

/** The display column at which `cell` starts in `line` (undefined when it is not there). */
function columnOf(line: string, cell: string): number | undefined {
  const at = line.indexOf(cell);
  return at < 0 ? undefined : stringWidth(line.slice(0, at));
}

describe("tables measured in display width", () => {
  for (const columns of [70, 80, 120]) {
    it(`aligns Chinese titles and fits ${columns} columns (awr ready, awr work list)`, () => {
      for (const words of [["ready"], ["work", "list"]]) {
        const { code, lines } = run(words, columns);
        expect(code).toBe(0);
        const header = lines.find((line) => line.startsWith("work  "));
        expect(header, words.join(" ")).toBeDefined();
        const nextColumn = columnOf(header as string, "next action");
        const rows = lines.filter((line) => /^W-\d /.test(line));
        expect(rows.length).toBeGreaterThan(2);
        for (const line of [header as string, ...rows]) {
          expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
        }
        for (const key of ["W-2", "W-3", "W-7"]) {
          const row = rows.find((line) => line.startsWith(`${key} `)) as string;
          // The cell after the title starts where its header does: "-" or the next action.
          const cell = key === "W-2" ? NEXT_ACTION.slice(0, 2) : " -";
          const at = columnOf(row, cell);
          expect(at, row).toBe(key === "W-2" ? nextColumn : (nextColumn as number) - 1);
        }
      }
    });
  }

  it("shows the whole next action when the width allows it, and cuts it only to fit", () => {
    const wide = run(["ready"], 200).lines.find((line) => line.startsWith("W-2 ")) as string;
    expect(wide.endsWith(NEXT_ACTION)).toBe(true);
    const narrow = run(["ready"], 90).lines.find((line) => line.startsWith("W-2 ")) as string;
    expect(narrow.endsWith("…")).toBe(true);
    // Cut to the width, not to a fixed length: the row takes the width up to a wide character.
    expect(stringWidth(narrow)).toBeGreaterThanOrEqual(89);
  });
});

describe("long values", () => {
  it("wrap under a hanging indent where the value starts (awr status)", () => {
    const { lines } = run(["status"], 60);
    const first = lines.findIndex((line) => line.startsWith("next action"));
    expect(first).toBeGreaterThan(0);
    const indent = columnOf(lines[first] as string, NEXT_ACTION.slice(0, 2)) as number;
    const following = lines.slice(first + 1, lines.indexOf("", first));
    expect(following.length).toBeGreaterThan(0);
    for (const line of [lines[first] as string, ...following]) {
      expect(stringWidth(line), line).toBeLessThanOrEqual(60);
    }
    for (const line of following) expect(line.slice(0, indent)).toBe(" ".repeat(indent));
    const value = [lines[first] as string, ...following].map((line) => line.slice(indent)).join("");
    expect(value).toBe(NEXT_ACTION);
  });
});
