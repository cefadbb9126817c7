import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  matchPathScope,
  matchScope,
  parseRuleScope,
  type RuleContext,
} from "../src/context/rule-scope.js";
import { BACKENDS, tempRoot } from "./helpers/backends.js";
import { compileL1 } from "./helpers/context.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

const known: RuleContext = {
  project_key: "SHOP",
  work_item_key: "PAY-2",
  agent_id: "agent-a",
  paths: ["src/payments/hosted.ts"],
  tags: ["payments"],
};
const unknown: RuleContext = { ...known, agent_id: null, paths: null, tags: null };
const applies = (attributes: Record<string, unknown>, context = known) =>
  matchScope(parseRuleScope(attributes), context).applicability;

describe("rule scopes", () => {
  it("reads the original's `scope=KIND value=V` form for every kind", () => {
    expect(applies({ scope: "project", value: "*" }, unknown)).toBe("applicable");
    expect(applies({ scope: "project", value: "SHOP" })).toBe("applicable");
    expect(applies({ scope: "project", value: "OTHER" })).toBe("not_applicable");
    expect(applies({ scope: "work_item", value: "PAY-2" })).toBe("applicable");
    expect(applies({ scope: "work_item", value: "PAY-3" })).toBe("not_applicable");
    expect(applies({ scope: "agent", value: "agent-a" })).toBe("applicable");
    expect(applies({ scope: "tag", value: "payments" })).toBe("applicable");
    expect(applies({ scope: "tag", value: "billing" })).toBe("not_applicable");
    expect(applies({ scope: "path", value: "src/payments/**" })).toBe("applicable");
    expect(applies({ scope: "path", value: "src/payments/" })).toBe("applicable");
    expect(applies({ scope: "path", value: "src/*.ts" })).toBe("not_applicable");
    expect(applies({ scope: { type: "tag", value: "payments" } })).toBe("applicable");
  });

  it("reads lists of entries (any entry reaching the item is enough) and the short forms", () => {
    expect(applies({ scope: ["global"] })).toBe("applicable");
    expect(applies({})).toBe("applicable");
    expect(applies({ scope: "docs/** tag:payments" })).toBe("applicable");
    expect(applies({ scope: ["docs/**", "work_item:INV-1"] })).toBe("not_applicable");
    expect(applies({ scope: "agent:agent-b path:src/payments/**" })).toBe("applicable");
  });

  it("answers unknown, with the reason, when the context an entry needs is not known", () => {
    expect(matchScope(parseRuleScope({ scope: "path", value: "src/**" }), unknown)).toEqual({
      applicability: "unknown",
      reasons: ["path context is unknown"],
    });
    expect(applies({ scope: "tag", value: "payments" }, unknown)).toBe("unknown");
    expect(applies({ scope: "agent", value: "agent-a" }, unknown)).toBe("unknown");
    // One entry applying decides; otherwise an undecidable entry keeps the answer unknown.
    expect(applies({ scope: "project:* tag:x" }, unknown)).toBe("applicable");
    expect(applies({ scope: "work_item:INV-1 tag:x" }, unknown)).toBe("unknown");
  });

  it("never drops an unreadable scope: it is unknown with the problem named", () => {
    for (const [attributes, problem] of [
      [{ scope: "team", value: "core" }, 'unknown scope kind "team"'],
      [{ scope: "path", value: " " }, "needs a non-empty value"],
      [{ scope: "path tag", value: "x" }, "exactly one scope kind"],
      [{ scope: "colour:blue" }, 'unknown scope kind "colour"'],
      [{ scope: "tag" }, 'scope kind "tag" needs a value'],
    ] as const) {
      const parsed = parseRuleScope(attributes);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toContain(problem);
      expect(matchScope(parsed, known).applicability).toBe("unknown");
    }
    expect(matchPathScope("/etc/**", ["src/a.ts"])).toContain("project-relative");
    expect(matchPathScope("src/**", ["../outside.ts"])).toContain("project-relative");
  });
});

const RULES = `# Never log card data {#no-card-logs severity=hard scope=project value=*}

Card numbers never reach logs.

# Team review {#team-review severity=hard scope=team value=core}

The core team reviews this.

# Style notes {#style severity=soft scope=colour value=blue}

Prefer short functions.
`;

function writeProject(root: string): string {
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "work-ledger.yaml"),
    [
      "milestones:",
      "  - id: M1",
      "    title: Launch",
      "    status: active",
      "work_items:",
      "  - id: W-1",
      "    title: Hosted page",
      "    status: ready",
      "    goal: goal#ship",
      "    milestone: M1",
      "    next_action: Build the redirect",
      "    acceptance: [Customer is redirected]",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(root, "GOALS.md"),
    "# Goals\n\n## Ship it {#ship status=active}\n\nCustomers can pay.\n",
  );
  writeFileSync(join(root, "RULES.md"), RULES);
  const manifest = join(root, "project.toml");
  writeFileSync(
    manifest,
    `[project]\nname = "scopes"\nauthority_mode = "source_first"\n\n${[
      ["work", "work-ledger.yaml", "yaml-ledger-v1"],
      ["goal", "GOALS.md", "markdown-heading-v1"],
      ["rule", "RULES.md", "markdown-rules-v1"],
    ]
      .map(([d, path, a]) => `[[sources]]\ndomain = "${d}"\npath = "${path}"\nadapter = "${a}"\n`)
      .join("\n")}`,
  );
  return manifest;
}

describe.each(BACKENDS)("an unreadable rule scope in a project on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("makes the context incomplete, is stated in the packet and reported, and never dropped", async () => {
    const { root, remove } = tempRoot("awr-scopes-");
    p = await openProjectAt(root, writeProject(root), backend, remove);
    const l1 = await compileL1(p.ledger, { work: "W-1" });
    expect(l1.completeness.complete).toBe(false);
    expect(l1.completeness.issues).toEqual([
      expect.objectContaining({
        field: "rules_complete",
        code: "hard_rule_unresolved",
        reference: "rule#team-review",
        reason: expect.stringContaining('unknown scope kind "team"'),
      }),
    ]);
    const text = l1.work_context?.rendered_context ?? "";
    expect(text).toContain("[unresolved-rule:rule#team-review]");
    expect(text).toContain("The core team reviews this.");
    expect(text).toContain("Never log card data\n\nCard numbers never reach logs.");
    expect(l1.omitted_refs).toEqual([
      expect.objectContaining({
        kind: "rule",
        reference: "rule#style",
        reason: expect.stringContaining("colour"),
      }),
    ]);
    const l0 = await p.ledger.call("awr_context_bootstrap", { work: "W-1" });
    expect(l0.context.complete).toBe(false);
    expect(l0.context.gaps.map((g) => g.code)).toEqual([
      "rule_applicability_unknown",
      "rule_applicability_unknown",
    ]);
    expect(l0.context.critical_rules.map((r) => r.external_key)).toEqual([
      "rule#no-card-logs",
      "rule#team-review",
    ]);
  });

  it("keeps an applicable hard rule required: a budget without room for it is BudgetExceeded", async () => {
    const { root, remove } = tempRoot("awr-scopes-");
    p = await openProjectAt(root, writeProject(root), backend, remove);
    const full = await compileL1(p.ledger, { work: "W-1" });
    const required = full.work_context?.required_tokens ?? 0;
    expect(full.work_context?.selected_chunks).toContainEqual(
      expect.objectContaining({ key: "rule#no-card-logs", required: true, section: "rules" }),
    );
    await expect(compileL1(p.ledger, { work: "W-1", budget: required - 1 })).rejects.toMatchObject({
      code: "BudgetExceeded",
      details: { required, budget: required - 1 },
    });
  });
});
