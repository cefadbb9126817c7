import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workstreamRead } from "@awr/awr-ledger/catalog";
import { ledgerStore } from "@awr/awr-ledger/testing";
import {
  derivedWorkstreamId,
  enableWorkstreams,
  listWorkstreams,
  migrateWorkstreams,
  workstreamIdOf,
} from "@awr/awr-ledger/workstreams";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const ID = "01HZX3W5J8K9M2N4P6Q7R8S9T0";
const BLOCK = `workstreams:
  version: 1
  definitions:
    - id: ${ID}
      external_key: core
      title: Core
      state: active
      authority_version: 1
      goal_keys: []
      acceptance_contracts: []
`;

/** Adds `workstream: core` to every item of the basic fixture's ledger, and the block. */
function declare(root: string, block = BLOCK): void {
  const file = join(root, "work-ledger.yaml");
  const text = readFileSync(file, "utf8").replace(
    /^( {2,4})- id: (.+)$/gm,
    "$1- id: $2\n$1  workstream: core",
  );
  writeFileSync(file, `${text}\n${block}`);
}

describe.each(BACKENDS)("awr workstream enable and migrate (%s)", (backend) => {
  let project: OpenProject | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });
  const manifestOf = () =>
    readFileSync(join(project?.root as string, ".awr", "project.toml"), "utf8");

  it("switches the ledger's adapter in the manifest, every other byte kept, then reindexes", async () => {
    project = await openFixtureProject("basic", backend);
    const before = manifestOf();
    declare(project.root);
    const listing = await enableWorkstreams(project.ledger);
    expect(listing).toMatchObject({ enabled: true, source_path: "work-ledger.yaml" });
    expect(listing.workstreams.map((w) => [w.external_key, w.work_items])).toEqual([["core", 5]]);
    expect(manifestOf()).toBe(
      before.replace('adapter = "yaml-ledger-v1"', 'adapter = "yaml-workstream-ledger-v1"'),
    );
    // Enabling again is the ordinary reindex.
    await expect(enableWorkstreams(project.ledger)).resolves.toMatchObject({ enabled: true });
  });

  it("refuses to enable, changing nothing, when no ledger declares a workstream", async () => {
    project = await openFixtureProject("basic", backend);
    const before = manifestOf();
    const revision = await ledgerStore(project.ledger).currentRevision();
    await expect(enableWorkstreams(project.ledger)).rejects.toMatchObject({
      code: "InvalidInput",
      message: expect.stringContaining("No ledger of this project declares workstreams"),
    });
    declare(project.root, "workstreams:\n  version: 1\n  definitions: []\n");
    await expect(enableWorkstreams(project.ledger)).rejects.toMatchObject({
      message: expect.stringContaining("must list at least one workstream definition"),
    });
    expect(manifestOf()).toBe(before);
    expect(await ledgerStore(project.ledger).currentRevision()).toBe(revision);
    expect((await listWorkstreams(project.ledger)).enabled).toBe(false);
  });

  it("refuses to enable a ledger with an item that names no workstream", async () => {
    project = await openFixtureProject("basic", backend);
    const before = manifestOf();
    writeFileSync(
      join(project.root, "work-ledger.yaml"),
      `${readFileSync(join(project.root, "work-ledger.yaml"), "utf8")}\n${BLOCK}`,
    );
    await expect(enableWorkstreams(project.ledger)).rejects.toMatchObject({
      message: expect.stringContaining("names no workstream"),
    });
    expect(manifestOf()).toBe(before);
  });

  it("converts the earlier per-file format: names kept as keys, ids derived, items moved", async () => {
    project = await openFixtureProject("basic", backend);
    mkdirSync(join(project.root, "workstreams"));
    writeFileSync(
      join(project.root, "workstreams", "billing.yaml"),
      "workstream_id: billing-migration\nauthority_version: 2\ntitle: Billing migration\nwork_items:\n  - id: B-1\n    title: Export invoices\n    status: ready\n    acceptance: [every invoice exported]\nobjects:\n  - {id: DEC-9, kind: decision, title: Keep numbers}\nevents:\n  - {type: note, work: B-1, summary: started}\n",
    );
    mkdirSync(join(project.root, ".awr", "workstreams"));
    writeFileSync(join(project.root, ".awr", "workstreams", "enabled.json"), "{}\n");
    const migrated = await migrateWorkstreams(project.ledger);
    const id = derivedWorkstreamId(project.ledger.projectId, "billing-migration");
    expect(workstreamIdOf(id)).toBe(id);
    expect(migrated.renamed).toEqual([
      {
        earlier_id: "billing-migration",
        workstream_id: id,
        external_key: "billing-migration",
        authority_version: 2,
      },
    ]);
    expect(migrated.not_converted).toEqual([
      { file: "workstreams/billing.yaml", objects: 1, events: 1 },
    ]);
    expect(
      migrated.workstreams.map((w) => [w.external_key, w.authority_version, w.work_items]),
    ).toEqual([
      ["main", 1, 5],
      ["billing-migration", 2, 1],
    ]);
    expect(migrated.legacy_default).toBe(derivedWorkstreamId(project.ledger.projectId, "main"));
    expect(existsSync(join(project.root, ".awr", "workstreams"))).toBe(false);
    expect(existsSync(join(project.root, "workstreams", "billing.yaml"))).toBe(true);
    const access = {
      project_id: project.ledger.projectId,
      client: "auditor",
      grants: [{ workstream_id: id, authority_version: 2 }],
    };
    const page = await workstreamRead(
      project.ledger,
      { protocol_version: 1, action: "catalog", args: { kind: "work" } },
      access,
    );
    const items = (page["result"] as { page: { items: { item: { key: string } }[] } }).page.items;
    expect(items.map((i) => i.item.key)).toEqual(["B-1"]);
  });

  it("refuses a conversion whose item keys clash, and leaves the ledger as it was", async () => {
    project = await openFixtureProject("basic", backend);
    const ledgerBefore = readFileSync(join(project.root, "work-ledger.yaml"));
    const key = "PAY-2";
    expect(ledgerBefore.toString("utf8")).toContain(`- id: ${key}`);
    mkdirSync(join(project.root, "workstreams"));
    writeFileSync(
      join(project.root, "workstreams", "a.yaml"),
      `workstream_id: alpha\nauthority_version: 1\ntitle: Alpha\nwork_items:\n  - {id: ${key}, title: Twice}\n`,
    );
    await expect(migrateWorkstreams(project.ledger)).rejects.toMatchObject({
      message: expect.stringContaining(`work item ${key} is also defined`),
    });
    expect(readFileSync(join(project.root, "work-ledger.yaml"))).toEqual(ledgerBefore);
    expect((await listWorkstreams(project.ledger)).enabled).toBe(false);
  });
});
