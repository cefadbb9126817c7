import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initProject, isLedgerError } from "@awr/awr-ledger";
import { describe, expect, it } from "vitest";
import { tempRoot } from "./helpers/backends.js";

/** Every path under root with its content hash (directories as "dir"). */
function snapshot(root: string, sub = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(root, sub))) {
    const rel = sub === "" ? name : `${sub}/${name}`;
    if (statSync(join(root, rel)).isDirectory())
      Object.assign(out, { [rel]: "dir" }, snapshot(root, rel));
    else
      out[rel] = createHash("sha256")
        .update(readFileSync(join(root, rel)))
        .digest("hex");
  }
  return out;
}

const SOURCES =
  '[[sources]]\ndomain = "ledger"\nrole = "primary"\npath = "w.yaml"\nadapter = "yaml-ledger-v1"\n' +
  '[[sources]]\ndomain = "goal"\nrole = "supporting"\npath = "GOALS.md"\nadapter = "markdown-heading-v1"\n[sources.options]\nkey_prefix = "goal"\n';

/** A project whose own .awr/project.toml is committed, as the original's repository has it. */
function project(manifestHead: string, goals: string) {
  const t = tempRoot();
  mkdirSync(join(t.root, ".awr"));
  writeFileSync(join(t.root, ".awr/project.toml"), `${manifestHead}\n${SOURCES}`);
  writeFileSync(
    join(t.root, "w.yaml"),
    "goals:\n  - id: goal#ship\n    title: Ship\nwork_items: []\n",
  );
  writeFileSync(join(t.root, "GOALS.md"), goals);
  writeFileSync(join(t.root, ".gitignore"), "node_modules\r\n");
  return t;
}

describe("a refused init leaves the project exactly as it was", () => {
  it("when two sources define one key: refused before anything is written, preview and accept", async () => {
    const p = project('[project]\nname = "p"', "## Ship {#ship}\n");
    try {
      const before = snapshot(p.root);
      const preview = await initProject({ root: p.root });
      expect(preview.issues).toContainEqual(
        expect.objectContaining({
          severity: "error",
          message: expect.stringMatching(/key goal#ship is already defined at w\.yaml:2/),
        }),
      );
      const error = await initProject({ root: p.root, accept: true }).catch((e: unknown) => e);
      expect(isLedgerError(error, "InvalidInput")).toBe(true);
      expect((error as Error).message).toMatch(/nothing was written/);
      expect(snapshot(p.root)).toEqual(before);
    } finally {
      p.remove();
    }
  });

  it("when the ledger cannot be created after writing began: every write is rolled back", async () => {
    const p = project(
      '[project]\nname = "p"\n[storage]\nbackend = "postgres"\nurl_env = "AWR_TEST_UNREACHABLE"',
      "## Other {#other}\n",
    );
    try {
      const before = snapshot(p.root);
      const error = await initProject({
        root: p.root,
        accept: true,
        env: { AWR_TEST_UNREACHABLE: "postgres://awr@127.0.0.1:1/none?connect_timeout=2" },
      }).catch((e: unknown) => e);
      expect((error as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
      expect(snapshot(p.root)).toEqual(before);
    } finally {
      p.remove();
    }
  });

  it("and a later init that succeeds creates only .awr/state.db and the .gitignore entries", async () => {
    const p = project('[project]\nname = "p"', "## Other {#other}\n");
    try {
      const result = await initProject({ root: p.root, accept: true });
      expect(result.created).toEqual([".awr/state.db", ".gitignore"]);
      expect(result.already_initialised).toBe(false);
      expect(readFileSync(join(p.root, ".gitignore"), "utf8")).toMatch(
        /^node_modules\r\n# AWR runtime state/,
      );
    } finally {
      p.remove();
    }
  });
});
