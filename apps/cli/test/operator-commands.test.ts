import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps, tempDir } from "./support/cli-harness.js";

let root: string;
let projectId: string;
const token = "t".repeat(20) + "0123456789abcdefghijkl";

beforeAll(async () => {
  root = await demoProject();
  projectId = (await awr(["--json", "status"], { cwd: root })).json()["project_id"] as string;
});
afterAll(removeTemps);

describe("awr token new", () => {
  it("prints a fresh 43-character base64url token each time", async () => {
    const first = await awr(["token", "new"]);
    const second = await awr(["token", "new"]);
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.stdout.trim()).not.toBe(first.stdout.trim());
    const json = await awr(["token", "new", "--json"]);
    expect(json.json()["token"]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe("awr registry check", () => {
  it("accepts a registry whose identities match and whose tokens are set", async () => {
    const dir = await tempDir();
    const file = join(dir, "service.toml");
    await writeFile(
      file,
      `version = 1\n\n[[projects]]\nkey = "shop"\nroot = "${root}"\nproject_id = "${projectId}"\n\n[[clients]]\nid = "team"\ntoken_env = "AWR_TEAM_TOKEN"\nwrite = ["shop"]\n`,
    );
    const result = await awr(["registry", "check", file, "--json"], {
      env: { AWR_TEAM_TOKEN: token },
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({
      ok: true,
      projects: [{ key: "shop", root, project_id: projectId }],
      clients: [{ id: "team", token_env: "AWR_TEAM_TOKEN", write: ["shop"] }],
    });
    expect(result.stdout).not.toContain(token);
    const human = await awr(["registry", "check", file], { env: { AWR_TEAM_TOKEN: token } });
    expect(human.stdout).toContain("ok");
  });

  it("lists every problem of a bad registry and exits 1", async () => {
    const dir = await tempDir();
    const file = join(dir, "bad.toml");
    await writeFile(
      file,
      `version = 1\ncolour = "blue"\n\n[[projects]]\nkey = "shop"\nroot = "relative/path"\nproject_id = "${projectId}"\n\n[[projects]]\nkey = "other"\nroot = "${root}"\nproject_id = "01AAAAAAAAAAAAAAAAAAAAAAAA"\n\n[[clients]]\nid = "team"\ntoken_env = "AWR_SHORT_TOKEN"\nwrite = ["shop", "nowhere"]\n`,
    );
    const result = await awr(["--json", "registry", "check", file], {
      env: { AWR_SHORT_TOKEN: "short" },
    });
    expect(result.code).toBe(1);
    const error = result.error();
    expect(error.code).toBe("RegistryInvalid");
    const problems = (error.details?.["problems"] ?? []) as string[];
    const all = problems.join("\n");
    expect(all).toContain("colour");
    expect(all).toContain("relative");
    expect(all).toContain("does not match");
    expect(all).toContain("AWR_SHORT_TOKEN");
    expect(all).toContain("nowhere");
    const human = await awr(["registry", "check", file], { env: { AWR_SHORT_TOKEN: "short" } });
    expect(human.code).toBe(1);
    expect(human.stderr).toContain("awr-mcp would refuse to start");
  });

  it("reports a missing file as a problem, not a crash", async () => {
    const result = await awr(["registry", "check", "/nonexistent/awr.toml", "--json"]);
    expect(result.code).toBe(1);
    expect(result.error().code).toBe("RegistryInvalid");
  });
});

const WS = "01HZX3W5J8K9M2N4P6Q7R8S9T0";

/** The demo ledger with one workstream (`shop`) that owns every work item. */
async function declareWorkstreams(project: string, definitions: string): Promise<void> {
  const file = join(project, "work-ledger.yaml");
  const text = (await readFile(file, "utf8")).replace(
    /^ {2}- id: (W-\d+)$/gm,
    "  - id: $1\n    workstream: shop",
  );
  await writeFile(file, `${text}\nworkstreams:\n  version: 1\n  definitions:\n${definitions}`);
}
const SHOP = `    - id: ${WS}\n      external_key: shop\n      title: Shop\n      state: active\n      authority_version: 1\n      goal_keys: []\n      acceptance_contracts: []\n`;

describe("awr workstream", () => {
  it("lists no workstreams in a project without any", async () => {
    const result = await awr(["workstream", "list", "--json"], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({
      enabled: false,
      pending: false,
      source_path: null,
      legacy_default: null,
      workstreams: [],
    });
  });

  it("enables the ledger's workstreams through its adapter and the ordinary reindex", async () => {
    const project = await demoProject();
    await declareWorkstreams(project, SHOP);
    const enabled = await awr(["workstream", "enable"], { cwd: project });
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain("served from work-ledger.yaml");
    expect(enabled.stdout).toContain(WS);
    expect(await readFile(join(project, ".awr", "project.toml"), "utf8")).toContain(
      'adapter = "yaml-workstream-ledger-v1"',
    );
    const list = await awr(["workstream", "list", "--json"], { cwd: project });
    expect(list.json()).toMatchObject({
      enabled: true,
      workstreams: [{ id: WS, external_key: "shop", authority_version: 1, work_items: 8 }],
    });
    const reindexed = await awr(["workstream", "reindex", "--json"], { cwd: project });
    expect(reindexed.json()).toMatchObject({ reindexed: false, enabled: true });
  });

  it("refuses to enable a ledger without a valid workstream, naming file and line, changing nothing", async () => {
    const project = await demoProject();
    const manifest = await readFile(join(project, ".awr", "project.toml"), "utf8");
    const none = await awr(["workstream", "enable", "--json"], { cwd: project });
    expect(none.code).toBe(1);
    expect(none.error().message).toContain("No ledger of this project declares workstreams");
    await declareWorkstreams(project, SHOP.replace("state: active", "state: done"));
    const bad = await awr(["workstream", "enable", "--json"], { cwd: project });
    expect(bad.code).toBe(1);
    expect(bad.error().message).toMatch(
      /work-ledger\.yaml:\d+: workstreams\.definitions\[0\]\.state must be one of/,
    );
    expect(await readFile(join(project, ".awr", "project.toml"), "utf8")).toBe(manifest);
    const list = await awr(["workstream", "list", "--json"], { cwd: project });
    expect(list.json()["enabled"]).toBe(false);
  });

  it("migrates earlier workstream files and renames their grants in a registry", async () => {
    const project = await demoProject();
    await mkdir(join(project, "workstreams"));
    await writeFile(
      join(project, "workstreams", "launch.yaml"),
      "workstream_id: shop-launch\nauthority_version: 2\ntitle: Shop launch\nwork_items:\n  - id: L-1\n    title: Announce the shop\n    status: planned\n",
    );
    const dir = await tempDir();
    const registry = join(dir, "service.toml");
    const id = (await awr(["--json", "status"], { cwd: project })).json()["project_id"] as string;
    const grant = `\n[[clients.workstreams]]\nproject = "shop"\nworkstream_id = "shop-launch"\nauthority_version = 2\n`;
    await writeFile(
      registry,
      `version = 2\n\n[[projects]]\nkey = "shop"\nroot = "${project}"\nproject_id = "${id}"\n\n[[clients]]\nid = "team"\ntoken_env = "AWR_TEAM_TOKEN"\nread = ["shop"]\n${grant}`,
      { mode: 0o600 },
    );
    const before = await readFile(registry, "utf8");
    const migrated = await awr(["workstream", "migrate", "--registry", registry, "--json"], {
      cwd: project,
    });
    expect(migrated.code).toBe(0);
    const result = migrated.json() as {
      renamed: { workstream_id: string }[];
      grants_renamed: number;
    };
    expect(result).toMatchObject({
      enabled: true,
      grants_renamed: 1,
      renamed: [{ earlier_id: "shop-launch", external_key: "shop-launch", authority_version: 2 }],
    });
    const newId = result.renamed[0]?.workstream_id as string;
    expect(await readFile(registry, "utf8")).toBe(
      before.replace('workstream_id = "shop-launch"', `workstream_id = "${newId}"`),
    );
    const check = await awr(["registry", "check", registry, "--json"], {
      env: { AWR_TEAM_TOKEN: token },
    });
    expect(check.code).toBe(0);
  });
});
