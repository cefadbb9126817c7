import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Ledger } from "@awr/awr-ledger";
import { ledgerStore, spendRevision } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openProjectAt } from "./helpers/projects.js";

// Status's current work: items in progress or claimed by status, plus items an active claim
// holds, highest priority first, then source order; at most five shown, all counted. The status
// summary keeps the first group in that order across in-place updates and a read merges the
// claimed extras into it (read/project-status.ts).

const caller = { client: "stdio" };

const ITEMS: [key: string, status: string, priority: string | number | null][] = [
  ["A1", "in_progress", "low"],
  ["A2", "in_progress", "high"],
  ["A3", "claimed", 1],
  ["A4", "in_progress", null],
  ["A5", "in_progress", "critical"],
  ["A6", "in_progress", "medium"],
  ["B1", "ready", "urgent"],
  ["B2", "ready", "low"],
  ["C1", "ready", "critical"],
];

function writeProject(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), "awr-status-current-"));
  writeFileSync(
    join(root, "project.toml"),
    '[project]\nname = "current"\n\n[[sources]]\ndomain = "work"\nrole = "primary"\n' +
      'path = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n',
  );
  const items = ITEMS.map(
    ([key, status, priority]) =>
      `  - id: ${key}\n    title: item ${key}\n    status: ${status}\n` +
      (priority === null ? "" : `    priority: ${priority}\n`),
  );
  writeFileSync(join(root, "work-ledger.yaml"), `work_items:\n${items.join("")}`);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** An active claim on `work` (with its session), as a claim write leaves them. */
async function claim(ledger: Ledger, work: string): Promise<void> {
  const { db } = ledgerStore(ledger);
  await db
    .insertInto("sessions")
    .values({
      ...{ id: `s-${work}`, client: "stdio", conversation: `c-${work}`, work, agent: "agent-1" },
      ...{ provider: "p", model: "m", status: "active", predecessor: null, successor: null },
      ...{ summary: null, last_checkpoint: null, start_revision: 1, end_revision: null },
      ...{ started_at: "x", ended_at: null },
    })
    .execute();
  await db
    .insertInto("claims")
    .values({
      ...{ id: `c-${work}`, work, session: `s-${work}`, client: "stdio", status: "active" },
      ...{ ttl_ms: null, expires_at: null, acquired_revision: 1, ended_revision: null },
      ...{ acquired_at: "x", ended_at: null },
    })
    .execute();
}

describe.each(BACKENDS)("status current work on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("lists claimed extras and current items by priority, then source order, across an in-place update", async () => {
    const { root, remove } = writeProject();
    p = await openProjectAt(root, join(root, "project.toml"), backend, remove);
    await claim(p.ledger, "B1");
    await claim(p.ledger, "B2");
    // A claim on an item current by status does not count it twice.
    await claim(p.ledger, "A1");
    const before = await p.ledger.call("awr_project_status", { view: "full" }, caller);
    expect((before.current ?? []).map((w) => w.external_key)).toEqual([
      "A5",
      "B1",
      "A2",
      "A3",
      "A6",
    ]);
    expect(before.current_total).toBe(8);
    expect(before.suggested_work?.external_key).toBe("A5");

    // A4 (no priority, last) becomes critical in place: it now leads, ahead of A5 by position.
    await ledgerStore(p.ledger).write(async (tx) => {
      await spendRevision(tx);
      await tx
        .updateTable("entities")
        .set({ attributes: JSON.stringify({ priority: "critical" }) })
        .where("key", "=", "A4")
        .execute();
    });
    const after = await p.ledger.call("awr_project_status", { view: "full" }, caller);
    expect((after.current ?? []).map((w) => w.external_key)).toEqual([
      "A4",
      "A5",
      "B1",
      "A2",
      "A3",
    ]);
    expect(after.current_total).toBe(8);
    expect(after.next_action).toBe("Start A4: item A4.");
  });
});
