// The read clock (migration 009, docs/design/read-caching.md): kept by triggers, it moves with
// the projection and with evidence only, so read caches survive every other write.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { ledgerStore, readClock, spendRevision } from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

describe.each(BACKENDS)("the read clock on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("moves with entities, dependencies and evidence, and with nothing else", async () => {
    p = await openFixtureProject("basic", backend);
    const { ledger } = p;
    const db = ledgerStore(ledger).db;
    const at = () => readClock(db);
    const revision = async () => (await at()).revision;
    const indexed = await at();
    expect(indexed.generation).toBeGreaterThan(0);
    expect(indexed.shape).toBe(indexed.generation);

    // Journal steps, events, sessions and claims leave the projection and evidence alone.
    await ledger.call(
      "awr_event_append",
      { event_type: "note", summary: "x", expected_revision: indexed.revision },
      caller,
    );
    const session = await ledger.call(
      "awr_session_start",
      {
        work: "PAY-2",
        conversation: "clock",
        agent: "a",
        provider: "p",
        model: "m",
        claim: true,
        expected_revision: await revision(),
      },
      caller,
    );
    const quiet = await at();
    expect(quiet.revision).toBeGreaterThan(indexed.revision);
    expect(quiet).toMatchObject({
      generation: indexed.generation,
      shape: indexed.shape,
      evidence: indexed.evidence,
    });

    // A transition updates one entity in place: the generation moves, the shape does not, and
    // the change names the entity.
    await ledger.call(
      "awr_work_transition",
      {
        work: "PAY-2",
        action: "progress",
        session: session.session.id,
        reason: "start",
        expected_revision: await revision(),
      },
      caller,
    );
    const moved = await at();
    expect(moved.generation).toBe(quiet.generation + 1);
    expect(moved.shape).toBe(quiet.shape);
    const { rows: changes } = await sql<{ generation: number; entity_key: string }>`
      SELECT generation, entity_key FROM projection_changes`.execute(db);
    expect(changes.map((c) => [Number(c.generation), c.entity_key])).toContainEqual([
      moved.generation,
      "PAY-2",
    ]);

    // Evidence moves only its own generation.
    await ledger.call(
      "awr_evidence_record",
      {
        external_key: "ev-1",
        evidence_type: "test",
        level: "locally_verified",
        summary: "checked",
        locator: "https://ci.example/run/1",
        scope: ["PAY-2"],
        work: "PAY-2",
        expected_revision: await revision(),
      },
      caller,
    );
    const evidenced = await at();
    expect(evidenced.evidence).toBeGreaterThan(moved.evidence);
    expect(evidenced.generation).toBe(moved.generation);

    // A reindex that adds an entity changes the shape; the next read reloads and sees it.
    const goals =
      (await ledger.call("awr_project_status", { view: "full" }, caller)).entity_counts?.["goal"] ??
      0;
    appendFileSync(
      join(p.root, "GOALS.md"),
      "\n## Another goal {#another status=active}\n\nMore.\n",
    );
    await ledger.call("awr_source_reindex", { expected_revision: await revision() }, caller);
    const reshaped = await at();
    expect(reshaped.shape).toBeGreaterThan(evidenced.generation);
    expect(reshaped.generation).toBe(reshaped.shape);
    expect(
      (await ledger.call("awr_project_status", { view: "full" }, caller)).entity_counts?.["goal"],
    ).toBe(goals + 1);

    // A source's note (a ledger's current: block, which status shows) is part of the
    // projection: changing it alone, as a reindex of an edited current: block may, reshapes it.
    expect(
      (await ledger.call("awr_project_status", { view: "full" }, caller)).ledger_notes,
    ).toEqual([]);
    const note = async (value: string | null) => {
      await ledgerStore(ledger).write(async (tx) => {
        await spendRevision(tx);
        await tx
          .updateTable("sources")
          .set({ note: value })
          .where("path", "=", "work-ledger.yaml")
          .execute();
      });
      return at();
    };
    const noted = await note(JSON.stringify({ current: { work_item: "PAY-2" } }));
    expect(noted.shape).toBe(reshaped.generation + 1);
    expect(
      (await ledger.call("awr_project_status", { view: "full" }, caller)).ledger_notes,
    ).toEqual([
      expect.objectContaining({ source: "work-ledger.yaml", current: { work_item: "PAY-2" } }),
    ]);
    // A transition's new fingerprint for the same source leaves the projection alone.
    await ledgerStore(ledger).write(async (tx) => {
      await spendRevision(tx);
      await tx
        .updateTable("sources")
        .set({ size: 1 })
        .where("path", "=", "work-ledger.yaml")
        .execute();
    });
    expect((await at()).generation).toBe(noted.generation);
    expect((await note(null)).shape).toBe(noted.generation + 1);
    expect(
      (await ledger.call("awr_project_status", { view: "full" }, caller)).ledger_notes,
    ).toEqual([]);
  });
});
