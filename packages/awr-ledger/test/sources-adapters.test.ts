import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLedgerError } from "@awr/awr-ledger";
import { confineSourcePath, parseManifest, SOURCE_ADAPTERS } from "@awr/awr-ledger/sources";
import { describe, expect, it } from "vitest";
import { tempRoot } from "./helpers/backends.js";
import { FIXTURES } from "./helpers/projects.js";

const basic = join(FIXTURES, "basic");
const SOURCES = [
  ["work-ledger.yaml", "yaml-ledger-v1", "work"],
  ["GOALS.md", "markdown-heading-v1", "goal"],
  ["PLAN.md", "markdown-heading-v1", "plan"],
  ["RULES.md", "markdown-rules-v1", "rule"],
  ["DECISIONS.md", "markdown-heading-v1", "decision"],
] as const;

describe("source adapters", () => {
  it("turn the fixture sources into exactly the expected entities (golden)", () => {
    const expected = JSON.parse(readFileSync(join(basic, "expected-entities.json"), "utf8"));
    for (const [file, adapter, domain] of SOURCES) {
      const result = SOURCE_ADAPTERS[adapter](readFileSync(join(basic, file), "utf8"), {
        path: file,
        domain,
        options: {},
      });
      expect(JSON.parse(JSON.stringify(result))).toEqual(expected[file]);
    }
  });

  it("report malformed YAML with the file and line, producing no entities", () => {
    const text = "work_items:\n  - id: A\n    title: ok\n  - id: B\n    title: [unclosed\n";
    const result = SOURCE_ADAPTERS["yaml-ledger-v1"](text, {
      path: "w.yaml",
      domain: "work",
      options: {},
    });
    expect(result.entities).toEqual([]);
    expect(result.issues[0]).toMatchObject({ path: "w.yaml", severity: "error" });
    expect(result.issues[0]?.line).toBeGreaterThanOrEqual(5);
  });

  it("report a work item without an id, a duplicate id and a bad acceptance level by line", () => {
    const text = [
      "work_items:",
      "  - title: no id",
      "  - id: A",
      "    title: first",
      "  - id: A",
      "    title: again",
      "  - id: C",
      "    title: bad level",
      "    acceptance: [{text: t, level: shipped}]",
    ].join("\n");
    const { issues } = SOURCE_ADAPTERS["yaml-ledger-v1"](text, {
      path: "w.yaml",
      domain: "work",
      options: {},
    });
    const errors = issues.filter((i) => i.severity === "error").map((i) => [i.line, i.message]);
    expect(errors).toEqual([
      [2, "work item without an id"],
      [5, "duplicate id A (also at line 3); give one of them another id"],
      [7, expect.stringContaining('acceptance level "shipped"')],
    ]);
  });

  it("project an unknown status as unknown and keep the raw text", () => {
    const text = "work_items:\n  - id: X\n    title: t\n    status: Waiting On Vendor\n";
    const { entities } = SOURCE_ADAPTERS["yaml-ledger-v1"](text, {
      path: "w.yaml",
      domain: "work",
      options: {},
    });
    expect(entities[0]).toMatchObject({ status: "unknown", raw_status: "Waiting On Vendor" });
  });

  it("report unreadable heading attributes and bad rule severities with their line", () => {
    const md = "# Rules\n\n## A {#a severity=fatal}\n\n## B {#b =oops}\n";
    const { issues } = SOURCE_ADAPTERS["markdown-rules-v1"](md, {
      path: "RULES.md",
      domain: "rule",
      options: {},
    });
    expect(issues.map((i) => [i.line, i.severity])).toEqual([
      [3, "error"],
      [5, "error"],
    ]);
  });

  it("honour key_prefix and fall back to a slug of the heading text", () => {
    const md = "## Ship it!\n\n## Ship it {#ship2}\n";
    const { entities } = SOURCE_ADAPTERS["markdown-heading-v1"](md, {
      path: "G.md",
      domain: "goal",
      options: { key_prefix: "objective" },
    });
    expect(entities.map((e) => e.key)).toEqual(["objective#ship-it", "objective#ship2"]);
  });
});

describe("the manifest", () => {
  it("parses the fixture manifest", () => {
    const manifest = parseManifest(readFileSync(join(basic, "project.toml"), "utf8"));
    expect(manifest.project).toEqual({
      name: "fixture-shop",
      external_key: "SHOP",
      authority_mode: "source_first",
    });
    expect(manifest.sources.map((s) => s.adapter)).toEqual(SOURCES.map(([, adapter]) => adapter));
  });

  it.each([
    ['[project]\nname = "x"\ncolour = "red"\n', /unknown field "colour"/],
    [
      '[project]\nname = "x"\n[[sources]]\ndomain = "work"\npath = "w.yaml"\nadapter = "yaml-ledger-v9"\n',
      /adapter/,
    ],
    [
      '[project]\nname = "x"\n[[sources]]\ndomain = "work"\npath = "w.yaml"\nadapter = "yaml-ledger-v1"\nprio = 1\n',
      /unknown field "prio"/,
    ],
    ['[project]\nname = "x"\n[storage]\nbackend = "postgres"\n', /url_env/],
    [
      '[project]\nname = "x"\n[storage]\nbackend = "postgres"\nurl_env = "postgres://u@h/db"\n',
      /environment variable/,
    ],
    ["[project\n", /not valid TOML/],
  ])("refuses a bad manifest with a message naming the problem (%#)", (text, message) => {
    const error = (() => {
      try {
        parseManifest(text);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isLedgerError(error, "InvalidInput")).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});

describe("source path confinement", () => {
  it("accepts relative paths inside the root and normalises them", () => {
    const { root, remove } = tempRoot();
    try {
      expect(confineSourcePath(root, "./docs/../GOALS.md").relative).toBe("GOALS.md");
    } finally {
      remove();
    }
  });

  it.each(["/etc/passwd", "../outside.md", "docs/../../outside.md", "~/x.md"])(
    "refuses %s, naming the path and the fix",
    (path) => {
      const { root, remove } = tempRoot();
      try {
        let error: unknown;
        try {
          confineSourcePath(root, path);
        } catch (e) {
          error = e;
        }
        expect(isLedgerError(error, "RuleViolation")).toBe(true);
        expect((error as Error).message).toContain(path);
        expect((error as Error).message).toMatch(/inside the project root/);
      } finally {
        remove();
      }
    },
  );

  it("refuses a symlink whose real path leaves the root, but allows one that stays inside", () => {
    const { root, remove } = tempRoot();
    const outside = tempRoot("awr-outside-");
    try {
      writeFileSync(join(outside.root, "secret.md"), "# secret\n");
      symlinkSync(join(outside.root, "secret.md"), join(root, "GOALS.md"));
      mkdirSync(join(root, "docs"));
      writeFileSync(join(root, "docs", "real.md"), "# real\n");
      symlinkSync(join(root, "docs", "real.md"), join(root, "PLAN.md"));
      expect(() => confineSourcePath(root, "GOALS.md")).toThrow(/symlink whose real path/);
      expect(confineSourcePath(root, "PLAN.md").relative).toBe("PLAN.md");
    } finally {
      remove();
      outside.remove();
    }
  });
});
