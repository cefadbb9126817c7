import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initProject, isLedgerError, openLedger } from "@awr/awr-ledger";
import { parseManifest } from "@awr/awr-ledger/sources";
import { describe, expect, it } from "vitest";
import { tempRoot } from "./helpers/backends.js";

const caller = { client: "stdio" };

function source(domain: string, path: string, adapter: string, extra = ""): string {
  return `[[sources]]\ndomain = "${domain}"\nrole = "primary"\npath = "${path}"\nadapter = "${adapter}"\n${extra}`;
}

function refusal(text: string): LedgerErrorLike {
  try {
    parseManifest(text);
  } catch (error) {
    return error as LedgerErrorLike;
  }
  throw new Error("the manifest was accepted");
}
type LedgerErrorLike = Error & { code: string };

describe("the manifest as the original AWR writes it", () => {
  it("accepts its domains, authorized_roots, context_profile and empty [sources.options] tables", () => {
    const manifest = parseManifest(
      [
        '[project]\nname = "p"\nexternal_key = "p"\nauthority_mode = "source_first"\nauthorized_roots = []\ncontext_profile = "minimal"\n',
        source("ledger", "w.yaml", "yaml-ledger-v1", "[sources.options]\n"),
        source("rules", "R.md", "markdown-rules-v1", "[sources.options]\n"),
        source(
          "decisions",
          "docs/decisions",
          "markdown-directory-v1",
          "[sources.options]\nrecursive = false\n",
        ),
      ].join("\n"),
    );
    expect(manifest.project).toMatchObject({ authorized_roots: [], context_profile: "minimal" });
    expect(manifest.sources.map((s) => [s.domain, s.options])).toEqual([
      ["ledger", {}],
      ["rules", {}],
      ["decisions", { recursive: false }],
    ]);
  });

  it("still opens manifests of earlier builds: work, rule and decision are read as the original's names", () => {
    const manifest = parseManifest(
      [
        '[project]\nname = "p"\n',
        source("work", "w.yaml", "yaml-ledger-v1"),
        source("rule", "R.md", "markdown-rules-v1"),
        source("decision", "D.md", "markdown-heading-v1"),
      ].join("\n"),
    );
    expect(manifest.sources.map((s) => s.domain)).toEqual(["ledger", "rules", "decisions"]);
  });

  it("reads a file:// locator as an absolute path, and refuses both path and locator", () => {
    const manifest = parseManifest(
      `[project]\nname = "p"\n[[sources]]\ndomain = "goal"\nrole = "primary"\nlocator = "file:///srv/plans/GOALS.md"\nadapter = "markdown-heading-v1"\n`,
    );
    expect(manifest.sources[0]?.path).toBe("/srv/plans/GOALS.md");
    const both = refusal(
      `[project]\nname = "p"\n[[sources]]\ndomain = "goal"\nrole = "primary"\npath = "G.md"\nlocator = "file:///G.md"\nadapter = "markdown-heading-v1"\n`,
    );
    expect(both.message).toMatch(/exactly one of "path" or "locator"/);
  });

  it.each([
    [
      `locator = "git://HEAD:docs/GOALS.md"\nadapter = "markdown-heading-v1"`,
      "Unsupported",
      /Git locator.*reads the file from that commit/,
    ],
    [
      `path = "L.md"\nadapter = "markdown-ledger-v1"`,
      "Unsupported",
      /markdown-ledger-v1 \(the original's Markdown-table work ledger/,
    ],
    [
      `path = "G.md"\nadapter = "markdown-heading-v1"\n[sources.options]\ncolour = "red"`,
      "InvalidInput",
      /no option "colour" \(allowed: key_prefix, status/,
    ],
    [
      `path = "G.md"\nadapter = "markdown-heading-v1"\n[sources.options]\nmax_entities = 0`,
      "InvalidInput",
      /"max_entities" must be an integer from 1/,
    ],
  ])("refuses what it cannot honour by name and meaning (%#)", (body, code, message) => {
    const error = refusal(
      `[project]\nname = "p"\n[[sources]]\ndomain = "goal"\nrole = "primary"\n${body}\n`,
    );
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it("refuses yaml-ledger field_map entries that are not work fields", () => {
    const error = refusal(
      `[project]\nname = "p"\n${source("ledger", "w.yaml", "yaml-ledger-v1", '[sources.options.field_map]\nverification = "checks"\n')}`,
    );
    expect(error.message).toMatch(/field_map cannot rename "verification"/);
  });
});

describe("authorized_roots", () => {
  function project(roots: string, goals: string) {
    const { root, remove } = tempRoot();
    const outside = tempRoot("awr-authorized-");
    mkdirSync(join(root, ".awr"));
    mkdirSync(join(outside.root, "plans"));
    writeFileSync(
      join(outside.root, "plans", "GOALS.md"),
      "## Shared goal {#shared}\n\nKept outside the project.\n",
    );
    writeFileSync(
      join(root, "w.yaml"),
      "work_items:\n  - id: W-1\n    title: t\n    status: ready\n    goal: goal#shared\n",
    );
    writeFileSync(
      join(root, ".awr/project.toml"),
      `[project]\nname = "p"\nauthorized_roots = [${roots.replace("OUT", outside.root)}]\n${source("ledger", "w.yaml", "yaml-ledger-v1")}\n${source("goal", goals.replace("OUT", outside.root), "markdown-heading-v1")}`,
    );
    return {
      root,
      remove() {
        remove();
        outside.remove();
      },
    };
  }

  it("lets a source live outside the root only inside an authorized root", async () => {
    const p = project('"OUT/plans"', "OUT/plans/GOALS.md");
    try {
      await initProject({ root: p.root, accept: true });
      const ledger = await openLedger({ root: p.root });
      try {
        const got = await ledger.call("awr_work_get", { work: "W-1" }, caller);
        expect(got.goal?.key).toBe("goal#shared");
      } finally {
        await ledger.close();
      }
    } finally {
      p.remove();
    }
  });

  it("refuses the same source without the authorized root, and a .. escape even with one", async () => {
    for (const [roots, path] of [
      ["", "OUT/plans/GOALS.md"],
      ['"OUT/plans"', "../outside/GOALS.md"],
    ] as const) {
      const p = project(roots, path);
      try {
        const error = await initProject({ root: p.root, accept: true }).catch((e: unknown) => e);
        expect(isLedgerError(error, "RuleViolation")).toBe(true);
        expect((error as Error).message).toMatch(/authorized/);
      } finally {
        p.remove();
      }
    }
  });
});
