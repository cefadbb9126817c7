import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, tempRoot } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

// A project in the shape of the original's MCP test fixture: one primary YAML ledger and no
// other source, its goals in the ledger, a work item linked to one of them. Written here.
const LEDGER = `goals:
- id: HANDBOOK
  title: Publish the support handbook
  status: active
  summary: Collect the answers support gives most often
  success_criteria: [The handbook is published]
- id: OLD
  title: Retire the old wiki
  status: done
work_items:
- id: H1
  title: Write the refunds chapter
  status: ready
  goal: HANDBOOK
  next_action: Outline the refunds chapter
  acceptance: [The refunds chapter is reviewed]
`;
const RULES = `# Rules

## Never quote card numbers {#no-card-quotes severity=hard scope=global}

Answers never include a card number.
`;

function manifest(profile: string | null, rules: boolean): string {
  return [
    "[project]",
    "name = 'Support handbook'",
    ...(profile === null ? [] : [`context_profile = '${profile}'`]),
    "[[sources]]",
    "domain = 'ledger'",
    "role = 'primary'",
    "path = 'work.yaml'",
    "adapter = 'yaml-ledger-v1'",
    ...(rules
      ? [
          "[[sources]]",
          "domain = 'rules'",
          "role = 'primary'",
          "path = 'RULES.md'",
          "adapter = 'markdown-rules-v1'",
        ]
      : []),
    "",
  ].join("\n");
}

async function handbook(
  backend: (typeof BACKENDS)[number],
  profile: string | null,
  rules = false,
): Promise<OpenProject> {
  const { root, remove } = tempRoot("awr-profile-");
  mkdirSync(join(root, ".awr"));
  writeFileSync(join(root, ".awr", "project.toml"), manifest(profile, rules));
  writeFileSync(join(root, "work.yaml"), LEDGER);
  if (rules) writeFileSync(join(root, "RULES.md"), RULES);
  return openProjectAt(root, join(root, ".awr", "project.toml"), backend, remove);
}

const codes = (issues: { code: string }[]) => issues.map((i) => i.code);

describe.each(BACKENDS)("context profile and ledger goals on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("selects the active goals of a primary ledger, shown as the packet's goal facts", async () => {
    p = await handbook(backend, null);
    const ctx = await compileL1(p.ledger, { work: "H1" });
    expect(ctx.goal_selection_basis).toBe("project_primary_goal_sources");
    expect(ctx.completeness.goal_context_complete).toBe(true);
    const text = ctx.work_context?.rendered_context ?? "";
    expect(text).toContain(
      "[goal:HANDBOOK]\nPublish the support handbook\nStatus: active\nSuccess criteria:\nThe handbook is published\n",
    );
    // The body is the goal's summary; its criteria are stated once, in the required chunk.
    expect(text).toContain("[goal-body:HANDBOOK]\nCollect the answers support gives most often\n");
    expect(text).not.toContain("OLD");
    const goalChunks = ctx.work_context?.selected_chunks.filter((c) => c.section === "goal");
    expect(goalChunks?.map((c) => [c.key, c.required])).toEqual([
      ["goal-body:HANDBOOK", false],
      ["goal:HANDBOOK", true],
    ]);
    // The standard profile still needs a rules source: only that gap is left.
    expect(codes(ctx.completeness.issues)).toEqual(["rules_source_missing"]);
    expect(ctx.completeness.rules_complete).toBe(false);
    expect(text).not.toContain("[context-profile]");
    const l0 = await p.ledger.call("awr_context_bootstrap", { work: "H1" });
    expect(l0.context.gaps.map((g) => g.code)).toEqual(["missing_phase", "rules_source_missing"]);
  });

  it("compiles a minimal-profile ledger-only project complete, stating the profile", async () => {
    p = await handbook(backend, "minimal");
    const ctx = await compileL1(p.ledger, { work: "H1" });
    expect(ctx.completeness).toMatchObject({
      complete: true,
      rules_complete: true,
      goal_context_complete: true,
      issues: [],
    });
    const profile = ctx.work_context?.selected_chunks.find((c) => c.key === "context-profile");
    expect(profile).toMatchObject({ section: "metadata", required: true });
    expect(ctx.work_context?.rendered_context).toContain(
      "[context-profile]\nContext profile: minimal.",
    );
    expect(ctx.work_context?.rendered_context).toContain("[goal:HANDBOOK]");
    const tool = await p.ledger.call("awr_context_compile", { work: "H1" });
    expect(tool).toMatchObject({ ok: true, completeness: { complete: true } });
    // L0 waives exactly what the original's does: the rules source and the declared phase.
    const l0 = await p.ledger.call("awr_context_bootstrap", { work: "H1" });
    expect(l0.context).toMatchObject({ complete: true, gaps: [] });
    expect(l0.rendered_context).toContain("Bootstrap: complete");
  });

  it("keeps every declared hard rule of a minimal project, and its other gaps", async () => {
    p = await handbook(backend, "minimal", true);
    const ctx = await compileL1(p.ledger, { work: "H1" });
    expect(ctx.completeness.complete).toBe(true);
    const required = ctx.work_context?.selected_chunks.filter((c) => c.required).map((c) => c.key);
    expect(required).toEqual(
      expect.arrayContaining(["context-profile", "goal:HANDBOOK", "rule#no-card-quotes"]),
    );
    expect(ctx.work_context?.rendered_context).toContain("Answers never include a card number.");
    const l0 = await p.ledger.call("awr_context_bootstrap", { work: "H1" });
    expect(l0.context.critical_rules).toHaveLength(1);
    // The profile waives no other required fact: a goal that is not there is still missing.
    const missing = await compileL1(p.ledger, { work: "H1", goals: ["NOPE"] });
    expect(codes(missing.completeness.issues)).toEqual(["goal_context_missing", "goal_not_found"]);
  });

  it("follows the profile of the manifest the sources were indexed under", async () => {
    p = await handbook(backend, "minimal");
    const { root } = p;
    const before = await p.ledger.call("awr_project_status", { view: "full" });
    expect((await compileL1(p.ledger, { work: "H1" })).completeness.complete).toBe(true);

    // Back to the standard profile: after the reindex the rules source is required again.
    writeFileSync(join(root, ".awr", "project.toml"), manifest("standard", false));
    const stale = await compileL1(p.ledger, { work: "H1" }).catch((e: { code: string }) => e);
    expect(stale).toMatchObject({ code: "SourceStale" });
    await p.ledger.call("awr_source_reindex", {
      expected_revision: before.project_revision,
    });
    const standard = await compileL1(p.ledger, { work: "H1" });
    expect(codes(standard.completeness.issues)).toEqual(["rules_source_missing"]);
    expect(standard.work_context?.rendered_context).not.toContain("[context-profile]");
  });
});
