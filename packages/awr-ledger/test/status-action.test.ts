import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens, LIMITS } from "@awr/awr-ledger";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

// awr_project_status view=action (the default): the four queues, bounded, with totals and
// omissions; history aggregated; a page of one queue read from the same snapshot as the totals.

const caller = { client: "stdio" };
// biome-ignore lint/suspicious/noExplicitAny: the answers are read as loose JSON here
type Json = Record<string, any>;

const MANIFEST =
  '[project]\nname = "daily"\n\n[[sources]]\ndomain = "work"\nrole = "primary"\n' +
  'path = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n';

async function open(backend: (typeof BACKENDS)[number], yaml: string): Promise<OpenProject> {
  const root = mkdtempSync(join(tmpdir(), "awr-status-action-"));
  writeFileSync(join(root, "project.toml"), MANIFEST);
  writeFileSync(join(root, "work-ledger.yaml"), yaml);
  return openProjectAt(root, join(root, "project.toml"), backend, () =>
    rmSync(root, { recursive: true, force: true }),
  );
}

function dailyYaml(history: number): string {
  let out = "goals:\n  - id: G\n    title: Publish a guide\n    status: active\nwork_items:\n";
  for (let i = 0; i < history; i++) {
    out += `  - id: H${i}\n    title: Earlier section ${i}\n    status: completed\n    goal: G\n`;
  }
  for (const [key, status, extra] of [
    ["W", "in_progress", ""],
    ["R", "ready", ""],
    ["D", "planned", "    depends_on: [W]\n"],
    ["B", "blocked", "    blocker: Needs an agreed scope\n"],
    ["U", "ready", "    depends_on: [MISSING]\n"],
  ]) {
    out += `  - id: ${key}\n    title: Write ${key}\n    status: ${status}\n    goal: G\n    next_action: Review section ${key}\n${extra}`;
  }
  return out;
}

const keys = (items: Json[]) => items.map((i) => i["key"]);

describe.each(BACKENDS)("awr_project_status view=action on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });
  const revision = () => ledgerStore((p as OpenProject).ledger).currentRevision();

  it("sorts open work into current, ready, waiting and blocked, history aggregated", async () => {
    p = await open(backend, dailyYaml(12));
    const status = (await p.ledger.call("awr_project_status", {}, caller)) as Json;
    expect(status).toMatchObject({
      view: "action",
      schema_version: 1,
      scope: { work: [], goal: null, milestone: null },
      scope_combination: "intersection",
      total: 17,
      project_work_total: 17,
      current_total: 1,
      ready_count: 1,
      waiting_count: 1,
      blocked_count: 2,
      history: { source_completed: 12, not_checked: 12, verification_failed: 0, source_sha: null },
      omissions: { current: 0, ready: 0, waiting: 0, blocked: 0, outside_scope: 0 },
    });
    expect(keys(status["current"])).toEqual(["W"]);
    expect(status["current"][0]).toMatchObject({
      ownership_required: true,
      details: { cli: ["work", "show", "W"], mcp: "awr_work_get" },
    });
    expect(keys(status["ready"])).toEqual(["R"]);
    expect(status["waiting"][0]).toMatchObject({
      key: "D",
      codes: ["required_dependency_incomplete"],
      wait_total: 0,
    });
    expect(keys(status["blocked"]).sort()).toEqual(["B", "U"]);
    expect(status["suggested_work"]["key"]).toBe("W");
    expect(status["next_action"]).toBe("Review section W");
    expect(
      status["organization"]["gaps"].some((g: Json) => g["code"] === "unknown_dependency"),
    ).toBe(true);
    expect(JSON.stringify(status)).not.toContain("H11");

    const scoped = (await p.ledger.call("awr_project_status", { work: ["W"] }, caller)) as Json;
    expect(scoped).toMatchObject({ total: 1, current_total: 1, blocked_count: 0 });
    expect(scoped["omissions"]["outside_scope"]).toBe(16);
    const sha = "a".repeat(40);
    const checked = (await p.ledger.call(
      "awr_project_status",
      { source_sha: sha },
      caller,
    )) as Json;
    expect(checked["history"]).toMatchObject({ not_checked: 0, verification_failed: 12 });

    const missing = await p.ledger
      .call("awr_project_status", { work: ["NOPE"] }, caller)
      .catch((e) => e);
    expect(missing.code).toBe("NotFound");
    // full stays the earlier overview.
    const full = (await p.ledger.call("awr_project_status", { view: "full" }, caller)) as Json;
    expect(full["view"]).toBe("full");
    expect(full["organisation_gaps"]).toBeDefined();
  });

  it("moves work with a pending user wait to waiting, and back once answered", async () => {
    p = await open(backend, dailyYaml(0));
    const ledger = p.ledger;
    const start = await ledger.call(
      "awr_session_start",
      {
        ...{ work: "R", conversation: "daily", agent: "writer", provider: "p", model: "m" },
        claim: true,
        expected_revision: await revision(),
      },
      caller,
    );
    const claimed = (await ledger.call("awr_project_status", { work: ["R"] }, caller)) as Json;
    expect(claimed["current"][0]["claims"][0]).toEqual({
      session: start.session.id,
      agent: "writer",
    });
    const waited = await ledger.call(
      "awr_session_wait",
      {
        session: start.session.id,
        question: "Which audience?",
        context_hash: "sha256:x",
        digest: "Drafted",
        next_action: "Ask",
        expected_revision: await revision(),
      },
      caller,
    );
    const waiting = (await ledger.call("awr_project_status", { work: ["R"] }, caller)) as Json;
    expect(waiting).toMatchObject({ current_total: 0, waiting_count: 1 });
    expect(waiting["waiting"][0]).toMatchObject({ wait_ids: [waited.wait.id], wait_total: 1 });
    expect(waiting["pending_operations"]["total"]).toBeGreaterThanOrEqual(1);
    await ledger.call(
      "awr_session_reply",
      { wait: waited.wait.id, reply: "New users", expected_revision: await revision() },
      caller,
    );
    const back = (await ledger.call("awr_project_status", { work: ["R"] }, caller)) as Json;
    expect(back).toMatchObject({ current_total: 1, waiting_count: 0 });
  });

  it("reads a page and its totals from one snapshot while claims are written", async () => {
    const items = Array.from(
      { length: 30 },
      (_, i) =>
        `  - id: R${String(i).padStart(2, "0")}\n    title: Ready ${i}\n    status: ready\n`,
    );
    p = await open(backend, `work_items:\n${items.join("")}`);
    const ledger = p.ledger;
    const page = (offset: number) =>
      ledger.call("awr_project_status", {}, caller, {
        statusQueue: "ready",
        statusOffset: offset,
        statusPageSize: 7,
      }) as Promise<Json>;
    const first = await page(0);
    expect(first["page"]).toEqual({
      queue: "ready",
      offset: 0,
      page_size: 7,
      returned: 7,
      total: 30,
      next_offset: 7,
    });
    expect((await page(28))["page"]).toMatchObject({ returned: 2, next_offset: null });
    const answers: Json[] = [];
    const started: number[] = [];
    for (let i = 0; i < 8; i++) {
      const [answer, start] = await Promise.all([
        page(20),
        revision().then((rev) =>
          ledger.call(
            "awr_session_start",
            {
              ...{ work: `R${String(i).padStart(2, "0")}`, conversation: `c${i}` },
              ...{ agent: "a", provider: "p", model: "m", claim: true, expected_revision: rev },
            },
            caller,
          ),
        ),
      ]);
      answers.push(answer);
      started.push(start.project_revision);
    }
    for (const answer of answers) {
      // Totals, queue entries and the page agree, and the claims are the revision's: one snapshot.
      const total = answer["ready_count"] as number;
      expect(answer["page"]["total"]).toBe(total);
      expect(answer["current_total"] + total).toBe(30);
      expect(answer["page"]["returned"]).toBe(Math.max(0, Math.min(7, total - 20)));
      const claimedBy = started.filter((r) => r <= answer["project_revision"]).length;
      expect(answer["current_total"]).toBe(claimedBy);
    }
    const refused = await ledger
      .call("awr_project_status", { view: "full" }, caller, { statusQueue: "ready" })
      .catch((e) => e);
    expect(refused.code).toBe("InvalidInput");
  });

  it("stays within the token bound on a 10,000-item project", async () => {
    const statuses = ["ready", "in_progress", "planned", "blocked", "completed"];
    const long = "a considerably long phrase that repeats ".repeat(3);
    const lines = ["goals:\n  - id: G\n    title: Goal\n    status: active\nwork_items:\n"];
    for (let i = 0; i < 10_000; i++) {
      const status = statuses[i % statuses.length];
      lines.push(
        `  - id: K${i}\n    title: ${long}${i}\n    status: ${status}\n    goal: G\n    next_action: ${long}\n` +
          (status === "planned" ? `    depends_on: [K${i - 1}]\n` : "") +
          (status === "blocked" ? `    blocker: ${long}\n` : ""),
      );
    }
    p = await open(backend, lines.join(""));
    const status = (await p.ledger.call("awr_project_status", {}, caller)) as Json;
    expect(status["total"]).toBe(10_000);
    expect(status["ready_count"]).toBe(2000);
    expect(countTokens(JSON.stringify(status))).toBeLessThanOrEqual(LIMITS.statusActionTokens);
    expect(status["omissions"]["ready"]).toBe(2000 - status["ready"].length);
  }, 120_000);
});

describe.each(BACKENDS)("awr_project_status view=summary on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("answers the selection's counts, current work, blockers and omissions", async () => {
    p = await open(backend, dailyYaml(3));
    const summary = (await p.ledger.call(
      "awr_project_status",
      { view: "summary" },
      caller,
    )) as Json;
    expect(summary).toMatchObject({
      view: "summary",
      schema_version: 1,
      scope_combination: "intersection",
      total: 8,
      project_work_total: 8,
      current_total: 1,
      ready_count: 1,
      // The legacy not-selectable count: in-progress work included.
      blocked_count: 4,
      diagnostic_counts: { status_not_ready: 3, required_dependency_incomplete: 1 },
      source_freshness: { total: 1, fresh: 1, not_fresh: [] },
      omissions: { current: 0, blockers: 0, outside_scope: 0, text_cap_characters: 240 },
    });
    expect(summary["current"][0]["key"]).toBe("W");
    expect(summary["suggested_work"]["key"]).toBe("W");
    expect(summary["blockers"].map((b: Json) => b["work"]).sort()).toEqual(["B", "D", "U", "W"]);
    const scoped = (await p.ledger.call(
      "awr_project_status",
      { view: "summary", work: ["B"] },
      caller,
    )) as Json;
    expect(scoped).toMatchObject({ total: 1, current_total: 0, blocked_count: 1 });
    expect(scoped["omissions"]["outside_scope"]).toBe(7);
  });
});
