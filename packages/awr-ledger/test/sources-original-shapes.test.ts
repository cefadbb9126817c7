import { SOURCE_ADAPTERS } from "@awr/awr-ledger/sources";
import { describe, expect, it } from "vitest";

const ledger = (text: string, options: Record<string, unknown> = {}) =>
  SOURCE_ADAPTERS["yaml-ledger-v1"](text, { path: "w.yaml", domain: "ledger", options });
const headings = (text: string, domain = "goal") =>
  SOURCE_ADAPTERS["markdown-heading-v1"](text, { path: "G.md", domain, options: {} });

describe("yaml-ledger-v1 in the original's shapes", () => {
  it("reads work_items, milestones and goals as maps keyed by the external key", () => {
    const { entities, dependencies, issues } = ledger(
      [
        "goals:",
        "  G-1: {title: Keep records, status: active}",
        "milestones:",
        "  M-1: {status: planned}",
        "work_items:",
        "  W-1:",
        "    title: First",
        "    status: ready",
        "    goal: G-1",
        "    milestone: M-1",
        "  W-2:",
        "    status: planned",
        "    dependencies: [{key: W-1}, {id: W-9, required: false}]",
      ].join("\n"),
    );
    expect(issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(entities.map((e) => [e.kind, e.key, e.title])).toEqual([
      ["goal", "G-1", "Keep records"],
      ["milestone", "M-1", "M-1"],
      ["work", "W-1", "First"],
      ["work", "W-2", "W-2"],
    ]);
    expect(dependencies).toEqual([
      { work_key: "W-2", depends_on: "W-1", required: true },
      { work_key: "W-2", depends_on: "W-9", required: false },
    ]);
    expect(entities[0]?.line_start).toBe(2);
    expect(entities[3]?.line_start).toBe(11);
  });

  it("accepts external_key as the id, and the original's spellings of one field", () => {
    const { entities, issues } = ledger(
      "work_items:\n  - external_key: W-1\n    status: ready\n    required_for_v1: false\n    deliverables: [a.md]\n    goals: [G-1, G-2]\n",
    );
    expect(issues).toEqual([]);
    expect(entities[0]).toMatchObject({
      key: "W-1",
      attributes: { required: false, paths: ["a.md"], goal: "G-1", goals: ["G-1", "G-2"] },
    });
  });

  it("refuses two different values for one field, a map key that differs from the id, and a repeated dependency", () => {
    const { issues } = ledger(
      "work_items:\n  A: {id: B, status: ready}\n  C: {status: ready, paths: [x], deliverables: [y]}\n  D: {status: ready, depends_on: [C, C]}\n",
    );
    expect(issues.filter((i) => i.severity === "error").map((i) => i.message)).toEqual([
      "work item under map key A has id B; the map key and the id must be the same",
      "work item C: paths and deliverables are two spellings of one field with different values; keep one",
      "work item D: depends on C twice; list it once",
    ]);
  });

  it("keeps top-level keys it does not project quietly, and the current: block as the ledger's note", () => {
    const result = ledger(
      "schema_version: 1\ncontract_id: c\nproject: {name: p}\nscenarios: []\ncurrent:\n  work_item: W-1\nwork_items:\n  - id: W-1\n    status: ready\n",
    );
    expect(result.issues).toEqual([]);
    expect(result.note).toEqual({ current: { work_item: "W-1" } });
  });

  it("maps statuses through status_map and names fields through field_map", () => {
    const { entities, issues } = ledger(
      "work_items:\n  - key: W-1\n    state: Done\n    next: ship\n",
      {
        field_map: { id: "key", status: "state", next_action: "next" },
        status_map: { Done: "completed" },
      },
    );
    expect(issues).toEqual([]);
    expect(entities[0]).toMatchObject({
      key: "W-1",
      status: "completed",
      raw_status: "Done",
      attributes: { next_action: "ship" },
    });
  });

  it("projects a missing status as unknown, never ready", () => {
    const { entities, issues } = ledger("work_items:\n  - id: W-1\n    title: no status\n");
    expect(entities[0]).toMatchObject({ status: "unknown", raw_status: null });
    expect(issues[0]?.message).toMatch(/has no status; projected as unknown/);
  });
});

describe("markdown headings in every script", () => {
  it("keys headings without Latin letters by their own characters, repeats with -2, -3", () => {
    const { entities, issues } = headings(
      "## 交付 范围\n\n## 交付 范围\n\n## 交付 范围\n\n## ！？\n\n## Ünïcode Straße\n",
    );
    expect(issues).toEqual([]);
    expect(entities.map((e) => e.key)).toEqual([
      "goal#交付-范围",
      "goal#交付-范围-2",
      "goal#交付-范围-3",
      "goal#section",
      "goal#ünïcode-straße",
    ]);
  });

  it("reports a repeated explicit key with both lines and the fix", () => {
    const { issues } = headings("## One {#same}\n\n## Two {#same}\n");
    expect(issues).toEqual([
      {
        path: "G.md",
        line: 3,
        severity: "error",
        message:
          "duplicate key goal#same (also at G.md:1); give one of the two headings another {#key}",
      },
    ]);
  });

  it("never reads YAML front matter as a heading, and keeps a lone # heading with a key", () => {
    const { entities } = headings(
      "---\ntitle: x\nstatus: draft\n---\n\n# Only goal {#only}\n\nText.\n",
    );
    expect(entities.map((e) => [e.key, e.line_start])).toEqual([["goal#only", 6]]);
  });

  it("takes a heading's title without its inline markup", () => {
    const { entities } = headings("## Ship **the** `api` [now](http://x)\n");
    expect(entities[0]).toMatchObject({ title: "Ship the api now", key: "goal#ship-the-api-now" });
  });
});

describe("markdown-directory-v1, one decision file", () => {
  const decision = (text: string) =>
    SOURCE_ADAPTERS["markdown-directory-v1"](text, {
      path: "docs/adr/0001-x.md",
      domain: "decisions",
      options: {},
    });

  it("takes bold header fields and a flat ADR's prose as the decision", () => {
    const { entities } = decision(
      "# Use queues\n\n- **Status:** Rejected\n- **Date**: 2026-01-02\n\nWe keep the cron job.\n",
    );
    expect(entities[0]).toMatchObject({
      key: "docs/adr/0001-x.md",
      title: "Use queues",
      status: "rejected",
      body: "We keep the cron job.",
      attributes: { date: "2026-01-02" },
    });
  });

  it("refuses conflicting status declarations and an unterminated front matter", () => {
    expect(
      decision("---\nstatus: accepted\n---\n# X\n\nStatus: rejected\n").issues[0]?.message,
    ).toMatch(/status is declared twice/);
    expect(decision("---\nstatus: accepted\n# X\n").issues[0]?.message).toMatch(
      /no closing --- line/,
    );
  });
});
