import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initProject, isLedgerError } from "@awr/awr-ledger";
import { fingerprintBytes, writeBackWorkItem } from "@awr/awr-ledger/sources";
import { ledgerStore } from "@awr/awr-ledger/testing";
import { listWorkstreams } from "@awr/awr-ledger/workstreams";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS, freshDatabase } from "./helpers/backends.js";
import { copyFixture, type OpenProject, openWorkstreamProject } from "./helpers/projects.js";

const STOREFRONT = "01HZX3W5J8K9M2N4P6Q7R8S9T0";
const PAYMENTS = "01HZX3W5J8K9M2N4P6Q7R8S9T1";

function edit(root: string, file: string, from: string | RegExp, to: string): void {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`the test edit found nothing to replace in ${file}`);
  writeFileSync(path, next);
}

/** The payments definition (lines 12-18 of the fixture ledger) with some lines replaced. */
const payments = (root: string, from: string, to: string) =>
  edit(root, "work.yaml", new RegExp(`(external_key: payments[\\s\\S]*?)${from}`), `$1${to}`);

async function refusal(project: OpenProject): Promise<{ code: string; message: string }> {
  const before = await ledgerStore(project.ledger).currentRevision();
  const error = await project.ledger.context.reindex().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isLedgerError(error)).toBe(true);
  expect(await ledgerStore(project.ledger).currentRevision()).toBe(before);
  return error as { code: string; message: string };
}

describe.each(BACKENDS)("workstream ledgers through the source reindex (%s)", (backend) => {
  let project: OpenProject | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it("records the declaration at init: the project then serves both workstreams", async () => {
    project = await openWorkstreamProject(backend);
    const listing = await listWorkstreams(project.ledger);
    expect(listing).toMatchObject({ enabled: true, pending: false, source_path: "work.yaml" });
    expect(
      listing.workstreams.map((w) => [w.external_key, w.id, w.authority_version, w.work_items]),
    ).toEqual([
      ["storefront", STOREFRONT, 1, 2],
      ["payments", PAYMENTS, 3, 1],
    ]);
    expect(listing.workstreams[0]?.project_id).toBe(project.ledger.projectId);
  });

  it("takes a change of authority only with a higher authority_version", async () => {
    project = await openWorkstreamProject(backend);
    payments(project.root, "state: active", "state: paused");
    const stale = await refusal(project);
    expect(stale.code).toBe("WorkstreamStaleAuthority");
    expect(stale.message).toContain(
      "changed its state, a change of authority: raise authority_version to 4",
    );
    payments(project.root, "authority_version: 3", "authority_version: 4");
    await project.ledger.context.reindex();
    const after = (await listWorkstreams(project.ledger)).workstreams[1];
    expect(after).toMatchObject({ state: "paused", authority_version: 4 });
    // A title is display only: it changes without a new version.
    payments(project.root, "title: Payments", "title: Checkout payments");
    await project.ledger.context.reindex();
    payments(
      project.root,
      "goal_keys: \\[take-payments\\]",
      "goal_keys: [take-payments, shop-online]",
    );
    expect((await refusal(project)).code).toBe("WorkstreamStaleAuthority");
  });

  it("never lets authority_version drop, nor an id or key change", async () => {
    project = await openWorkstreamProject(backend);
    payments(project.root, "authority_version: 3", "authority_version: 2");
    const lower = await refusal(project);
    expect(lower.code).toBe("WorkstreamStaleAuthority");
    expect(lower.message).toContain("authority_version 2 is lower than the recorded 3");
    payments(project.root, "authority_version: 2", "authority_version: 3");
    edit(project.root, "work.yaml", "external_key: payments", "external_key: billing");
    edit(project.root, "work.yaml", "workstream: payments", "workstream: billing");
    const renamed = await refusal(project);
    expect(renamed.code).toBe("WorkstreamBindingMismatch");
    expect(renamed.message).toContain(`${PAYMENTS} is payments, not billing`);
  });

  it("archives a workstream but never removes one", async () => {
    project = await openWorkstreamProject(backend);
    const text = readFileSync(join(project.root, "work.yaml"), "utf8");
    const start = text.indexOf("    - id: 01HZX3W5J8K9M2N4P6Q7R8S9T1");
    const end = text.indexOf("goals:");
    writeFileSync(
      join(project.root, "work.yaml"),
      (text.slice(0, start) + text.slice(end)).replace(
        "workstream: payments",
        "workstream: storefront",
      ),
    );
    const removed = await refusal(project);
    expect(removed.code).toBe("SourceConflict");
    expect(removed.message).toContain(
      "payments (01HZX3W5J8K9M2N4P6Q7R8S9T1) is no longer declared",
    );
  });

  it("needs every goal key to name a goal", async () => {
    project = await openWorkstreamProject(backend);
    payments(project.root, "goal_keys: \\[take-payments\\]", "goal_keys: [get-rich]");
    payments(project.root, "authority_version: 3", "authority_version: 4");
    const missing = await refusal(project);
    expect(missing.code).toBe("SourceConflict");
    expect(missing.message).toContain("names goal get-rich, which no source defines");
  });

  it("keeps the declaration once enabled: no plain adapter, no dropped block", async () => {
    project = await openWorkstreamProject(backend);
    const manifest = join(project.root, ".awr", "project.toml");
    edit(project.root, ".awr/project.toml", '"yaml-workstream-ledger-v1"', '"yaml-ledger-v1"');
    const plain = await refusal(project);
    expect(plain.code).toBe("Unsupported");
    expect(plain.message).toContain("work.yaml:2: the ledger declares workstreams:");
    const text = readFileSync(join(project.root, "work.yaml"), "utf8");
    writeFileSync(
      join(project.root, "work.yaml"),
      text.slice(text.indexOf("goals:")).replace(/ {4}workstream: \w+\n/g, ""),
    );
    const dropped = await refusal(project);
    expect(dropped.code).toBe("SourceConflict");
    expect(dropped.message).toContain("it no longer declares workstreams");
    expect(readFileSync(manifest, "utf8")).toContain('"yaml-ledger-v1"');
  });

  it("keeps every work item in the declaring ledger", async () => {
    project = await openWorkstreamProject(backend);
    writeFileSync(
      join(project.root, "more.yaml"),
      "work_items:\n  - id: X-1\n    title: Elsewhere\n",
    );
    edit(
      project.root,
      ".awr/project.toml",
      /$/,
      '\n[[sources]]\ndomain = "ledger"\nrole = "supporting"\npath = "more.yaml"\nadapter = "yaml-ledger-v1"\n',
    );
    const outside = await refusal(project);
    expect(outside.code).toBe("SourceConflict");
    expect(outside.message).toContain(
      "more.yaml:2: work item X-1 is outside work.yaml, the ledger that declares the workstreams",
    );
  });

  it("moves a work item without history, never one with sessions or events", async () => {
    project = await openWorkstreamProject(backend);
    edit(
      project.root,
      "work.yaml",
      /(id: PAY-1[\s\S]*?)workstream: payments/,
      "$1workstream: storefront",
    );
    await project.ledger.context.reindex();
    expect((await listWorkstreams(project.ledger)).workstreams.map((w) => w.work_items)).toEqual([
      3, 0,
    ]);
    await project.ledger.call("awr_session_start", {
      work: "SHOP-1",
      conversation: "c-1",
      agent: "a",
      provider: "p",
      model: "m",
      expected_revision: await ledgerStore(project.ledger).currentRevision(),
    });
    edit(
      project.root,
      "work.yaml",
      /(id: SHOP-1[\s\S]*?)workstream: storefront/,
      "$1workstream: payments",
    );
    const moved = await refusal(project);
    expect(moved.code).toBe("SourceConflict");
    expect(moved.message).toContain("work item SHOP-1 moved to another workstream");
  });

  it("never writes a workstream ledger back: its work changes by editing it", async () => {
    project = await openWorkstreamProject(backend);
    const bytes = readFileSync(join(project.root, "work.yaml"));
    const attempt = () =>
      writeBackWorkItem(
        project?.root as string,
        "work.yaml",
        "SHOP-1",
        { status: "completed" },
        fingerprintBytes(bytes),
      );
    expect(attempt).toThrow(/yaml-workstream-ledger-v1 ledger, which AWR never writes/);
    expect(readFileSync(join(project.root, "work.yaml"))).toEqual(bytes);
  });
});

describe.each(BACKENDS)("a workstreams block under yaml-ledger-v1 (%s)", (backend) => {
  it("refuses init as Unsupported and writes nothing", async () => {
    const fixture = copyFixture("workstreams");
    edit(fixture.root, "project.toml", '"yaml-workstream-ledger-v1"', '"yaml-ledger-v1"');
    const db = await freshDatabase(backend);
    try {
      const error = await initProject({
        root: fixture.root,
        manifest: join(fixture.root, "project.toml"),
        accept: true,
        database: db.db,
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "Unsupported" });
      expect((error as Error).message).toContain("work.yaml:2: the ledger declares workstreams:");
      expect(existsSync(join(fixture.root, ".awr"))).toBe(false);
    } finally {
      await db.close();
      fixture.remove();
    }
  });
});
