import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

let root: string;

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("awr init", () => {
  it("previews the source mapping without writing anything", async () => {
    const fresh = await demoProject({ init: false });
    const result = await awr(["--json", "init"], { cwd: fresh });
    expect(result.code).toBe(0);
    const preview = result.json();
    expect(preview["mode"]).toBe("preview");
    expect(preview["created"]).toEqual([]);
    const second = await awr(["status"], { cwd: fresh });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("awr init --accept");
  });

  it("does not tell a person to accept a preview that has an error", async () => {
    const fresh = await demoProject({ init: false });
    // A ledger declaring workstreams under the plain ledger adapter is an error init refuses.
    const ledger = join(fresh, "work-ledger.yaml");
    await writeFile(
      ledger,
      `workstreams:\n  version: 1\n  definitions: []\n${await readFile(ledger, "utf8")}`,
    );
    const preview = await awr(["init"], { cwd: fresh });
    expect(preview.stdout).toContain('set adapter = "yaml-workstream-ledger-v1"');
    expect(preview.stdout).toContain(
      "`awr init --accept` would refuse this mapping: fix the errors above, then preview it again with `awr init`.",
    );
    expect(preview.stdout).not.toContain("to create .awr/ with this mapping");
    expect((await awr(["init", "--accept"], { cwd: fresh })).code).toBe(1);
  });

  it("creates the project with --accept and keeps its id when run again", async () => {
    const fresh = await demoProject({ init: false });
    const first = await awr(["init", "--accept", "--json"], { cwd: fresh });
    expect(first.code).toBe(0);
    const id = first.json()["project_id"];
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const again = await awr(["init", "--accept", "--json"], { cwd: fresh });
    expect(again.json()["project_id"]).toBe(id);
  });
});

describe("awr status", () => {
  it("prints one JSON document with the project id and revision under --json", async () => {
    const result = await awr(["--project", root, "--json", "status"]);
    expect(result.code).toBe(0);
    const status = result.json();
    expect(status["project_id"]).toEqual(expect.any(String));
    expect(status["project_revision"]).toEqual(expect.any(Number));
  });

  it("accepts --json on either side of the subcommand", async () => {
    const before = await awr(["--json", "status"], { cwd: root });
    const after = await awr(["status", "--json"], { cwd: root });
    expect(after.json()).toEqual(before.json());
  });

  it("finds the project upward from a subdirectory, like git", async () => {
    const deep = join(root, "server", "orders");
    await mkdir(deep, { recursive: true });
    const result = await awr(["status", "--json"], { cwd: deep });
    expect(result.code).toBe(0);
    const direct = await awr(["--project", root, "--json", "status"]);
    expect(result.json()["project_id"]).toBe(direct.json()["project_id"]);
  });

  it("is readable for a person: aligned fields, no colour on a pipe", async () => {
    const result = await awr(["status"], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/revision \d+/);
    expect(result.stdout).toMatch(/ready\s+\d+/);
    expect(result.stdout).not.toContain("\u001b[");
  });
});

describe("colour", () => {
  it("colours a terminal, and never when NO_COLOR is set or with --no-color", async () => {
    const tty = await awr(["status"], { cwd: root, tty: true });
    expect(tty.stdout).toContain("\u001b[");
    const noColor = await awr(["status"], { cwd: root, tty: true, env: { NO_COLOR: "1" } });
    expect(noColor.stdout).not.toContain("\u001b[");
    const flag = await awr(["status", "--no-color"], { cwd: root, tty: true });
    expect(flag.stdout).not.toContain("\u001b[");
  });
});

describe("reads", () => {
  it("lists ready work with unmet dependencies left out", async () => {
    const result = await awr(["ready", "--json"], { cwd: root });
    const ids = (result.json()["ready"] as { external_key: string }[]).map((i) => i.external_key);
    expect(ids).toEqual(expect.arrayContaining(["W-2", "W-3", "W-7"]));
    expect(ids).not.toContain("W-4");
    const human = await awr(["ready", "--limit", "2"], { cwd: root });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("W-2");
  });

  it("shows one work item with its acceptance criteria", async () => {
    const result = await awr(["work", "show", "W-2", "--json"], { cwd: root });
    expect(result.code).toBe(0);
    expect(JSON.stringify(result.json())).toContain("The orders schema is created by a migration");
    const human = await awr(["work", "show", "W-2"], { cwd: root });
    expect(human.stdout).toContain("Order storage in PostgreSQL");
  });

  it("searches the planning sources", async () => {
    const result = await awr(["search", "payment", "--json"], { cwd: root });
    expect(result.code).toBe(0);
    expect(JSON.stringify(result.json())).toContain("W-3");
  });

  it("compiles a context packet for a work item", async () => {
    // The goal and a concrete path in play decide every rule: the packet is complete.
    const scope = ["--goal", "goal#checkout", "--path", "server/orders/repository.ts"];
    const result = await awr(
      ["context", "compile", "W-2", "--detached", ...scope, "--budget", "2000", "--json"],
      { cwd: root },
    );
    expect(result.code).toBe(0);
    const packet = result.json<{ work_context: Record<string, unknown> }>().work_context;
    expect(packet["rendered_context"]).toContain("W-2");
    expect(packet["context_hash"]).toEqual(expect.any(String));
    const human = await awr(["context", "compile", "W-2", "--detached", ...scope], { cwd: root });
    expect(human.stdout).toContain("Order storage in PostgreSQL");
  });

  it("prints an incomplete packet with its gaps, and exits 1 with ContextIncomplete", async () => {
    const human = await awr(["context", "compile", "W-2", "--detached"], { cwd: root });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain("Order storage in PostgreSQL");
    expect(human.stderr).toContain("error [ContextIncomplete]");
    expect(human.stderr).toMatch(/gaps: .*hard_rule_unresolved rule#migrations/);
    expect(human.stderr).toMatch(/next: .*awr source reindex/);
  });

  it("prints the L0 bootstrap packet, its budget 1000 by default", async () => {
    const result = await awr(["context", "bootstrap", "--work", "W-2", "--json"], { cwd: root });
    expect(result.code).toBe(0);
    const l0 = result.json<{ level: string; token_budget: number; rendered_context: string }>();
    expect(l0).toMatchObject({ ok: true, level: "L0", token_budget: 1000 });
    expect(l0.rendered_context).toContain("W-2");
    const human = await awr(["context", "bootstrap", "--work", "W-2", "--budget", "900"], {
      cwd: root,
    });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("Order storage in PostgreSQL");
    expect(human.stdout).toMatch(/tokens\s+\d+ of 900/);
  });

  it("lists work as an aligned table, narrowed by status, milestone and goal", async () => {
    // Wide enough for every cell whole (80 columns would cut the titles to fit).
    const result = await awr(["work", "list", "--milestone", "M2"], {
      cwd: root,
      env: { COLUMNS: "100" },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        "work  status   title                                  goal         milestone  next action",
        "W-6   planned  Catalogue search with type-ahead       goal#search  M2         -",
        "W-7   ready    Import the publisher's catalogue feed  goal#search  M2         -",
        "",
      ].join("\n"),
    );
    const ready = await awr(
      ["work", "list", "--status", "ready", "--goal", "goal#search", "--json"],
      {
        cwd: root,
      },
    );
    expect(ready.json()["items"]).toEqual([
      {
        work: "W-7",
        title: "Import the publisher's catalogue feed",
        status: "ready",
        goal: "goal#search",
        milestone: "M2",
        next_action: null,
      },
    ]);
  });

  it("shows a work item's goal and milestone once each", async () => {
    const result = await awr(["work", "show", "W-2"], { cwd: root });
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.slice(1, 3)).toEqual([
      "  goal  goal#checkout — Customers can buy a book in under a minute [active]",
      "  milestone  M1 — A working checkout [active]",
    ]);
    expect(result.stdout.match(/goal#checkout/g)).toHaveLength(1);
  });

  it("lists the sources and reports them fresh", async () => {
    const list = await awr(["source", "list", "--json"], { cwd: root });
    expect((list.json()["sources"] as { path: string }[]).map((s) => s.path)).toContain(
      "work-ledger.yaml",
    );
    const scan = await awr(["source", "scan", "--json"], { cwd: root });
    expect(scan.json()["fresh"]).toBe(true);
  });
});
