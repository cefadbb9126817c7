import { mkdir, writeFile } from "node:fs/promises";
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

describe("awr workstream", () => {
  it("lists no workstreams in a project without any", async () => {
    const result = await awr(["workstream", "list", "--json"], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({ enabled: false, workstreams: [] });
  });

  it("indexes and enables valid workstream files, then serves only them", async () => {
    const project = await demoProject();
    await mkdir(join(project, "workstreams"));
    await writeFile(
      join(project, "workstreams", "launch.yaml"),
      "workstream_id: shop-launch\nauthority_version: 1\ntitle: Shop launch\nwork_items:\n  - id: L-1\n    title: Announce the shop\n    status: planned\n",
    );
    const reindexed = await awr(["workstream", "reindex", "--json"], { cwd: project });
    expect(reindexed.code).toBe(0);
    expect(reindexed.json()).toMatchObject({
      enabled: false,
      workstreams: [{ workstream_id: "shop-launch", work_items: 1 }],
    });
    const enabled = await awr(["workstream", "enable"], { cwd: project });
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain("shop-launch");
    const list = await awr(["workstream", "list", "--json"], { cwd: project });
    expect(list.json()["enabled"]).toBe(true);
  });

  it("refuses to enable malformed workstream files, naming file and line", async () => {
    const project = await demoProject();
    await mkdir(join(project, "workstreams"));
    await writeFile(join(project, "workstreams", "broken.yaml"), "workstream_id: [unclosed\n");
    const result = await awr(["workstream", "enable", "--json"], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.error().message).toContain("workstreams/broken.yaml");
    const list = await awr(["workstream", "list", "--json"], { cwd: project });
    expect(list.json()["enabled"]).toBe(false);
  });
});
