import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

// `awr status`: the action view by default, --view full for the earlier overview, and
// --queue/--offset/--page-size paging one queue (the CLI's own flags).

let root: string;

beforeAll(async () => {
  root = await demoProject();
});
afterAll(removeTemps);

describe("awr status --view", () => {
  it("answers the action view by default, and full or summary when asked", async () => {
    const action = (await awr(["--json", "status"], { cwd: root })).json();
    expect(action["view"]).toBe("action");
    for (const field of ["current_total", "ready_count", "waiting_count", "blocked_count"]) {
      expect(action[field]).toEqual(expect.any(Number));
    }
    const full = (await awr(["--json", "status", "--view", "full"], { cwd: root })).json();
    expect(full["view"]).toBe("full");
    expect(full["organisation_gaps"]).toEqual(expect.any(Array));
    const summary = (await awr(["--json", "status", "--view", "summary"], { cwd: root })).json();
    expect(summary["view"]).toBe("summary");
  });

  it("pages one queue and prints the action view in a few readable lines", async () => {
    const paged = await awr(
      ["--json", "status", "--queue", "ready", "--offset", "0", "--page-size", "1"],
      { cwd: root },
    );
    expect(paged.code).toBe(0);
    const page = paged.json()["page"] as Record<string, unknown>;
    expect(page).toMatchObject({ queue: "ready", offset: 0, page_size: 1 });
    expect(page["total"]).toBe(paged.json()["ready_count"]);
    const human = await awr(["status"], { cwd: root });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/ready\s+\d+/);
    expect(human.stdout).toMatch(/waiting\s+\d+/);
    expect(human.stdout.split("\n").length).toBeLessThan(40);
    const bad = await awr(["--json", "status", "--offset", "3"], { cwd: root });
    expect(bad.code).not.toBe(0);
  });
});
