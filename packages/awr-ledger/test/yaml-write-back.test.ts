import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLedgerError } from "@awr/awr-ledger";
import { fingerprintBytes, SOURCE_ADAPTERS, writeBackWorkItem } from "@awr/awr-ledger/sources";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempRoot } from "./helpers/backends.js";
import { FIXTURES } from "./helpers/projects.js";

const fixture = (name: string) => join(FIXTURES, "write-back", name);

describe("YAML write-back of one work item", () => {
  let root: string;
  let remove: () => void;
  let file: string;
  beforeEach(() => {
    ({ root, remove } = tempRoot());
    file = join(root, "work-ledger.yaml");
    copyFileSync(fixture("before.yaml.txt"), file);
  });
  afterEach(() => remove());

  it("changes only the given values, leaving every other byte identical (golden)", () => {
    const result = writeBackWorkItem(
      root,
      "work-ledger.yaml",
      "A-1",
      {
        status: "blocked",
        next_action: "wait for the vendor's reply",
        blocker: "Vendor API down: waiting",
      },
      fingerprintBytes(readFileSync(file)),
    );
    const written = readFileSync(file, "utf8");
    expect(written).toBe(readFileSync(fixture("after.yaml.txt"), "utf8"));
    expect(result.fingerprint).toBe(fingerprintBytes(written));
    expect(result.changed).toEqual(["status", "next_action", "blocker"]);
    const { entities } = SOURCE_ADAPTERS["yaml-ledger-v1"](written, {
      path: "w",
      domain: "work",
      options: {},
    });
    expect(entities.find((e) => e.key === "A-1")?.attributes["blocker"]).toBe(
      "Vendor API down: waiting",
    );
  });

  it("adds a missing field to a block item and to a flow item", () => {
    let fp = fingerprintBytes(readFileSync(file));
    fp = writeBackWorkItem(
      root,
      "work-ledger.yaml",
      "B-2",
      { next_action: "review", status: "completed" },
      fp,
    ).fingerprint;
    writeBackWorkItem(
      root,
      "work-ledger.yaml",
      "C-3",
      { status: "in_progress", next_action: "start" },
      fp,
    );
    const written = readFileSync(file, "utf8");
    expect(written).toContain("      status: completed\n      next_action: review\n  - {id: C-3");
    expect(written).toContain(
      "{id: C-3, title: Flow item, status: in_progress, next_action: start}",
    );
    expect(written.split("\n").slice(0, 12).join("\n")).toBe(
      readFileSync(fixture("before.yaml.txt"), "utf8").split("\n").slice(0, 12).join("\n"),
    );
  });

  it("refuses with SourceConflict when the file changed since it was indexed", () => {
    const indexed = fingerprintBytes(readFileSync(file));
    writeFileSync(file, `${readFileSync(file, "utf8")}# edited by a person\n`);
    let error: unknown;
    try {
      writeBackWorkItem(root, "work-ledger.yaml", "A-1", { status: "blocked" }, indexed);
    } catch (e) {
      error = e;
    }
    expect(isLedgerError(error, "SourceConflict")).toBe(true);
    expect(readFileSync(file, "utf8")).toContain("# edited by a person");
  });

  it("refuses an unknown work item and a path outside the root", () => {
    const fp = fingerprintBytes(readFileSync(file));
    expect(() =>
      writeBackWorkItem(root, "work-ledger.yaml", "Z-9", { status: "ready" }, fp),
    ).toThrow(/Z-9/);
    expect(() =>
      writeBackWorkItem(root, "../work-ledger.yaml", "A-1", { status: "ready" }, fp),
    ).toThrow(/inside the project root/);
  });
});
