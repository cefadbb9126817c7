// The rest of a work item's milestone in a context packet (context/milestone-neighbours.ts):
// which siblings are shown and which completed items are listed, from the projection, and the
// same answer after in-place updates as from a projection built fresh.
import { describe, expect, it } from "vitest";
import {
  DONE_LIMIT,
  milestoneNeighbours,
  SIBLING_LIMIT,
} from "../src/context/milestone-neighbours.js";
import { workFact } from "../src/context/work-facts.js";
import type { EntityView } from "../src/read/entity-row.js";
import { Projection } from "../src/read/projection.js";
import type { EntityTable } from "../src/storage/schema.js";

interface Item {
  key: string;
  status: string;
  goal?: string;
  milestone?: string;
}

function row(item: Item, ordinal: number): EntityTable {
  const { key, status, ...attributes } = item;
  return {
    id: `id-${key}`,
    kind: "work",
    key,
    title: `Title of ${key}`,
    status,
    raw_status: status,
    summary: null,
    body: "",
    attributes: JSON.stringify(attributes),
    source_path: "work.yaml",
    line_start: ordinal + 1,
    line_end: ordinal + 1,
    ordinal,
    indexed_revision: 1,
  };
}

const projectionOf = (items: readonly Item[], generation = 1) =>
  Projection.fromRows(generation, items.map(row), []);

function neighboursOf(
  projection: Projection,
  key: string,
  covered: string[] = [],
  visible?: (key: string) => boolean,
) {
  const work = workFact(projection.entity(key) as EntityView, 1);
  const { siblings, done } = milestoneNeighbours(
    projection,
    work,
    new Set(covered),
    visible,
    () => 1,
  );
  return { siblings: siblings.map((s) => s.external_key), done };
}

// Keys W-00..W-39 in source order z..a, so source order is not key order.
const items: Item[] = Array.from({ length: 40 }, (_, i) => {
  const n = 39 - i;
  return {
    key: `W-${String(n).padStart(2, "0")}`,
    status: n % 5 === 0 ? "completed" : n % 7 === 0 ? "cancelled" : "ready",
    goal: n % 3 === 0 ? "goal#a" : "goal#b",
    milestone: n < 36 ? "M1" : "M2",
  };
});

describe("milestone neighbours", () => {
  it("shows active siblings toward the same goal first, in key order, none covered", () => {
    const projection = projectionOf(items);
    const { siblings } = neighboursOf(projection, "W-03", ["W-06"]);
    // goal#a (n % 3 == 0), active, not W-03 itself, not covered W-06, in M1 (n < 36).
    const sameGoal = ["W-09", "W-12", "W-18", "W-24", "W-27", "W-33"];
    const others = ["W-01", "W-02", "W-04", "W-08", "W-11", "W-13"];
    expect(siblings).toEqual([...sameGoal, ...others].slice(0, SIBLING_LIMIT));
  });

  it("counts and lists the completed items, without the item itself", () => {
    const projection = projectionOf(items);
    const { done } = neighboursOf(projection, "W-05");
    // W-05 is completed itself; W-35 is the last of M1.
    expect(done.count).toBe(7);
    expect(done.listed.map((d) => d.key)).toEqual([
      "W-00",
      "W-10",
      "W-15",
      "W-20",
      "W-25",
      "W-30",
      "W-35",
    ]);
    expect(done.listed[0]?.title).toBe("Title of W-00");
    const many = projectionOf(
      Array.from({ length: DONE_LIMIT + 5 }, (_, i) => ({
        key: `D-${String(i).padStart(2, "0")}`,
        status: "completed",
        milestone: "M1",
      })).concat([{ key: "A-1", status: "ready", milestone: "M1" }]),
    );
    const { done: all } = neighboursOf(many, "A-1");
    expect(all.count).toBe(DONE_LIMIT + 5);
    expect(all.listed).toHaveLength(DONE_LIMIT);
  });

  it("leaves out what the reader may not see", () => {
    const projection = projectionOf(items);
    const hidden = new Set(["W-09", "W-10"]);
    const { siblings, done } = neighboursOf(projection, "W-03", [], (key) => !hidden.has(key));
    expect(siblings).not.toContain("W-09");
    expect(done.listed.map((d) => d.key)).not.toContain("W-10");
    expect(done.count).toBe(7);
  });

  it("gives the same answer after in-place updates as a projection built fresh", () => {
    const base = projectionOf(items);
    neighboursOf(base, "W-03"); // computes the members, so the update carries them
    const edits: Item[][] = [
      [{ ...(items[39 - 9] as Item), status: "completed" }],
      [{ ...(items[39 - 10] as Item), status: "ready" }],
      [{ ...(items[39 - 12] as Item), milestone: "M2" }],
    ];
    let current = base;
    let all = items;
    for (const [generation, edit] of edits.entries()) {
      all = all.map((item) => edit.find((e) => e.key === item.key) ?? item);
      const rows = edit.map((e) =>
        row(
          e,
          all.findIndex((i) => i.key === e.key),
        ),
      );
      current = current.withUpdates(generation + 2, rows) as Projection;
      const fresh = projectionOf(all, generation + 2);
      for (const key of ["W-03", "W-05", "W-37"]) {
        expect(neighboursOf(current, key)).toEqual(neighboursOf(fresh, key));
      }
    }
    // W-09 completed, W-10 reopened: still eight completed in M1.
    expect(neighboursOf(current, "W-03").done.listed.map((d) => d.key)).toContain("W-09");
    expect(neighboursOf(current, "W-03").done.count).toBe(8);
  });
});
