import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLedgerError } from "@awr/awr-ledger";
import { fingerprintBytes, writeBackWorkItem } from "@awr/awr-ledger/sources";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempRoot } from "./helpers/backends.js";

// The write-back edits bytes, never a decoded string: everything outside the changed values
// is copied as it was, whatever it is.
describe("byte-exact YAML write-back", () => {
  let root: string;
  let remove: () => void;
  beforeEach(() => {
    ({ root, remove } = tempRoot());
  });
  afterEach(() => remove());

  function write(bytes: Buffer | string): string {
    const file = join(root, "work-ledger.yaml");
    writeFileSync(file, bytes);
    return file;
  }

  function back(key: string, changes: Parameters<typeof writeBackWorkItem>[3]): Buffer {
    const file = join(root, "work-ledger.yaml");
    writeBackWorkItem(root, "work-ledger.yaml", key, changes, fingerprintBytes(readFileSync(file)));
    return readFileSync(file);
  }

  it("keeps invalid UTF-8, a BOM and CRLF outside the edited value byte for byte", () => {
    const head = Buffer.from("\uFEFF# notes: ", "utf8");
    const invalid = Buffer.from([0xff, 0xfe, 0x80]);
    const rest = Buffer.from(
      "\r\nwork_items:\r\n  - id: A-1\r\n    title: 甲\r\n    status: ready\r\n  - id: B-2\n    status: planned\n",
      "utf8",
    );
    write(Buffer.concat([head, invalid, rest]));
    const after = back("A-1", { status: "in_progress" });
    const expected = Buffer.concat([
      head,
      invalid,
      Buffer.from(rest.toString("utf8").replace("status: ready", "status: in_progress"), "utf8"),
    ]);
    expect(after.equals(expected)).toBe(true);
  });

  it("adds a missing field with the line ending of the line it follows (mixed endings survive)", () => {
    write("work_items:\n  - id: A-1\r\n    status: ready\r\n  - id: B-2\n    status: planned\n");
    const after = back("A-1", { next_action: "ship it" });
    expect(after.toString("utf8")).toBe(
      "work_items:\n  - id: A-1\r\n    status: ready\r\n    next_action: ship it\r\n  - id: B-2\n    status: planned\n",
    );
  });

  it("finds an item in a map keyed by the external key, or by external_key", () => {
    write(
      "work_items:\n  A-1:\n    title: keyed\n    status: ready\n  B-2: {external_key: B-2, status: planned}\n",
    );
    expect(back("A-1", { status: "blocked", blocker: "waiting" }).toString("utf8")).toContain(
      "  A-1:\n    title: keyed\n    status: blocked\n    blocker: waiting\n",
    );
    expect(back("B-2", { status: "ready" }).toString("utf8")).toContain(
      "B-2: {external_key: B-2, status: ready}",
    );
  });

  it("writes through the source's field_map and keeps its status_map spelling", () => {
    mkdirSync(join(root, ".awr"));
    writeFileSync(
      join(root, ".awr/project.toml"),
      '[project]\nname = "p"\n[[sources]]\ndomain = "ledger"\nrole = "primary"\npath = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n[sources.options.field_map]\nnext_action = "next"\n[sources.options.status_map]\ndone = "completed"\n',
    );
    write("work_items:\n  - id: A-1\n    status: ready\n    next: old step\n");
    const after = back("A-1", { status: "completed", next_action: "nothing" }).toString("utf8");
    expect(after).toBe("work_items:\n  - id: A-1\n    status: done\n    next: nothing\n");
  });

  it.each([
    [
      "a block scalar",
      "work_items:\n  - id: A-1\n    status: ready\n    next_action: |\n      line one\n      line two\n",
      /block scalar/,
    ],
    [
      "an alias",
      "step: &s old\nwork_items:\n  - id: A-1\n    status: ready\n    next_action: *s\n",
      /not a plain value/,
    ],
    ["a tagged value", "work_items:\n  - id: A-1\n    status: !custom ready\n", /anchor or tag/],
  ])("refuses to edit %s with SourceConflict before writing anything", (_what, text, message) => {
    const file = write(text);
    const before = readFileSync(file);
    let error: unknown;
    try {
      writeBackWorkItem(
        root,
        "work-ledger.yaml",
        "A-1",
        { status: "blocked", next_action: "x" },
        fingerprintBytes(before),
      );
    } catch (e) {
      error = e;
    }
    expect(isLedgerError(error, "SourceConflict")).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
