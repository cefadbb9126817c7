import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initProject, isLedgerError, openLedger, STARTER_LEDGER_PATH } from "@awr/awr-ledger";
import { describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase, tempRoot } from "./helpers/backends.js";
import { copyFixture } from "./helpers/projects.js";

describe("awr init on the default SQLite ledger", () => {
  it("previews the discovered mapping without writing anything", async () => {
    const { root, remove } = copyFixture("basic");
    try {
      const before = readdirSync(root).sort();
      const preview = await initProject({ root });
      expect(preview.mode).toBe("preview");
      expect(preview.project_id).toBeNull();
      expect(preview.manifest_origin).toBe("discovered");
      // Every discovered source is authoritative (primary) but the decisions, as the original's
      // init maps them.
      expect(preview.sources.map((s) => [s.domain, s.role, s.path, s.entity_count])).toEqual([
        ["ledger", "primary", "work-ledger.yaml", 6],
        ["goal", "primary", "GOALS.md", 5],
        ["plan", "primary", "PLAN.md", 3],
        ["rules", "primary", "RULES.md", 5],
        ["decisions", "supporting", "DECISIONS.md", 3],
      ]);
      expect(preview.issues.map((i) => i.severity)).toEqual(["warning"]);
      expect(preview.preview_fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(readdirSync(root).sort()).toEqual(before);
      expect((await initProject({ root })).preview_fingerprint).toBe(preview.preview_fingerprint);
    } finally {
      remove();
    }
  });

  it("accepts: creates the manifest, the ledger, .gitignore entries and a permanent project id", async () => {
    const { root, remove } = copyFixture("basic");
    try {
      const accepted = await initProject({
        root,
        manifest: join(root, "project.toml"),
        accept: true,
      });
      expect(accepted.mode).toBe("accepted");
      expect(accepted.project_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(accepted.project_revision).toBe(1);
      expect(accepted.created).toEqual([".awr/project.toml", ".awr/state.db", ".gitignore"]);
      expect(readFileSync(join(root, ".awr/project.toml"), "utf8")).toBe(
        readFileSync(join(root, "project.toml"), "utf8"),
      );
      expect(readFileSync(join(root, ".gitignore"), "utf8")).toContain(".awr/state.db");
      expect(existsSync(join(root, ".awr/state.db"))).toBe(true);

      const again = await initProject({ root, accept: true });
      expect(again.project_id).toBe(accepted.project_id);
      expect(again.already_initialised).toBe(true);
      expect(again.created).toEqual([]);
      expect(again.project_revision).toBe(1);

      const ledger = await openLedger({ root });
      try {
        const status = await ledger.call(
          "awr_project_status",
          { view: "full" },
          { client: "stdio" },
        );
        expect(status.project_id).toBe(accepted.project_id);
      } finally {
        await ledger.close();
      }
    } finally {
      remove();
    }
  });

  it("refuses a manifest that conflicts with the one already accepted", async () => {
    const { root, remove } = copyFixture("basic");
    try {
      await initProject({ root, manifest: join(root, "project.toml"), accept: true });
      writeFileSync(join(root, "other.toml"), '[project]\nname = "other"\n');
      const error = await initProject({
        root,
        manifest: join(root, "other.toml"),
        accept: true,
      }).catch((e: unknown) => e);
      expect(isLedgerError(error, "SourceConflict")).toBe(true);
      expect((error as Error).message).toMatch(/different manifest/);
    } finally {
      remove();
    }
  });

  it("creates a starter work ledger under .awr/intake when none exists, never overwriting", async () => {
    const { root, remove } = tempRoot();
    try {
      writeFileSync(join(root, "GOALS.md"), "# Goals\n\n## One {#one}\n");
      writeFileSync(join(root, ".gitignore"), "node_modules\n");
      const accepted = await initProject({ root, accept: true });
      expect(accepted.created).toContain(STARTER_LEDGER_PATH);
      expect(accepted.manifest.sources.map((s) => s.path)).toEqual([
        STARTER_LEDGER_PATH,
        "GOALS.md",
      ]);
      expect(readFileSync(join(root, ".gitignore"), "utf8")).toMatch(
        /^node_modules\n# AWR runtime state/,
      );
      writeFileSync(
        join(root, STARTER_LEDGER_PATH),
        "work_items:\n  - id: MINE\n    title: kept\n",
      );
      await initProject({ root, accept: true });
      expect(readFileSync(join(root, STARTER_LEDGER_PATH), "utf8")).toContain("MINE");
    } finally {
      remove();
    }
  });

  it("refuses a root that does not exist and a cancelled call, rejecting with the reason unchanged", async () => {
    await expect(initProject({ root: "/nonexistent/awr/root" })).rejects.toMatchObject({
      code: "NotFound",
    });
    const controller = new AbortController();
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(initProject({ root: "/tmp", signal: controller.signal })).rejects.toBe(reason);
  });
});

describe.each(BACKENDS)("awr init on %s through a caller-provided database", (backend) => {
  it("assigns one identity and keeps it across re-runs", async () => {
    const { root, remove } = copyFixture("basic");
    const db = await freshDatabase(backend);
    try {
      const first = await initProject({
        root,
        manifest: join(root, "project.toml"),
        accept: true,
        database: db.db,
      });
      const second = await initProject({ root, accept: true, database: db.db });
      expect(second.project_id).toBe(first.project_id);
      const preview = await initProject({ root, database: db.db });
      expect(preview.project_id).toBe(first.project_id);
      expect(preview.project_revision).toBe(1);
    } finally {
      await db.close();
      remove();
    }
  });
});
