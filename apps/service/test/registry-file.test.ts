import { execFileSync } from "node:child_process";
import { chmod, cp, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import { killAll, spawnService, startHttpService } from "./support/service-process.js";

// awr-mcp refuses, at startup and with the fix in the message, a registry file it cannot trust
// and a token that is not one. Each case runs the real program and reads its stderr.

const TOKEN = "k".repeat(48);
let dir: string;
let cleanup: () => Promise<void>;
let project: { key: string; root: string; project_id: string };

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-registry-file-"));
  project = { key: "shop", ...(await makeProject(dir, "shop")) };
});
afterEach(() => killAll());
afterAll(async () => {
  await cleanup?.();
});

/** A valid registry in its own directory; returns its path and the token environment. */
async function registryIn(name: string, token = TOKEN) {
  const home = join(dir, name);
  await mkdir(home);
  return writeRegistry(home, [project], [{ id: "eng", token, write: ["shop"] }]);
}

/** Runs awr-mcp on the registry and expects exit code 1 with exactly these stderr lines. */
async function refuses(file: string, env: Record<string, string>, problem: string) {
  const child = spawnService(["--registry", file, "--listen", "127.0.0.1:0"], env);
  expect(await child.exited).toBe(1);
  expect(child.stderr().trim().split("\n")).toEqual([
    `awr-mcp: registry ${file}: ${problem}`,
    "awr-mcp: refusing to start: 1 problem(s) in the registry",
  ]);
  expect(child.stdout()).toBe("");
}

const writable = (file: string, mode: string) =>
  `is writable by group or others (mode ${mode}), so another user could grant themselves access; run \`chmod go-w ${file}\``;
const notRegular = (kind: string) =>
  `is ${kind}, not a regular file; give the path of the registry TOML file itself`;
const tokenRule = "tokens are 32 to 4096 visible ASCII characters (try `awr token new`)";

describe("awr-mcp's registry file checks", () => {
  it("starts on a registry of mode 600", async () => {
    const { file, env } = await registryIn("private");
    const service = await startHttpService(file, env);
    expect(await service.stop()).toBe(0);
  });

  it("refuses a group-writable registry, naming chmod", async () => {
    const { file, env } = await registryIn("group");
    await chmod(file, 0o664);
    await refuses(file, env, writable(file, "0664"));
  });

  it("refuses a world-writable registry, naming chmod", async () => {
    const { file, env } = await registryIn("world");
    await chmod(file, 0o602);
    await refuses(file, env, writable(file, "0602"));
  });

  it("refuses a FIFO at once instead of waiting for a writer", async () => {
    const { env } = await registryIn("fifo");
    const fifo = join(dir, "fifo", "service.fifo");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    await refuses(fifo, env, notRegular("a FIFO (named pipe)"));
  });

  it("refuses a symbolic link to a FIFO at once as well", async () => {
    const { env } = await registryIn("fifo-link");
    const fifo = join(dir, "fifo-link", "service.fifo");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    const link = join(dir, "fifo-link", "link.toml");
    await symlink(fifo, link);
    await refuses(link, env, notRegular("a FIFO (named pipe)"));
  });

  it("refuses a directory", async () => {
    const { env } = await registryIn("directory");
    const directory = join(dir, "directory", "service.d");
    await mkdir(directory, { mode: 0o700 });
    await refuses(directory, env, notRegular("a directory"));
  });

  it("follows a symbolic link to a private file, and refuses one to a writable file", async () => {
    const { file, env } = await registryIn("link");
    const link = join(dir, "link", "current.toml");
    await symlink(file, link);
    const service = await startHttpService(link, env);
    expect(await service.stop()).toBe(0);
    await chmod(file, 0o666);
    await refuses(link, env, writable(link, "0666"));
  });

  it("refuses a blank token of 40 spaces", async () => {
    const { file, env } = await registryIn("blank", " ".repeat(40));
    await refuses(
      file,
      env,
      `clients[0].token_env: the token in AWR_TEST_TOKEN_ENG is blank (only whitespace); ${tokenRule}`,
    );
  });

  it("refuses a token variable that is set but empty, saying so", async () => {
    const { file, env } = await registryIn("empty");
    await refuses(
      file,
      { ...env, AWR_TEST_TOKEN_ENG: "" },
      "clients[0].token_env: environment variable AWR_TEST_TOKEN_ENG is set but empty; set it to the client's token (32 to 4096 visible ASCII characters; try `awr token new`)",
    );
  });

  it("refuses a copied project directory listed under a second key, naming both keys, the id and the fix", async () => {
    const copy = join(dir, "shop-copy");
    await cp(project.root, copy, { recursive: true });
    const home = join(dir, "copied");
    await mkdir(home);
    const { file, env } = await writeRegistry(
      home,
      [project, { key: "shop-copy", root: copy, project_id: project.project_id }],
      [{ id: "eng", token: TOKEN, write: ["shop", "shop-copy"] }],
    );
    await refuses(
      file,
      env,
      `projects: "shop" and "shop-copy" have the same project_id "${project.project_id}" on different roots ("${project.root}" and "${copy}"); a project_id names one ledger, and a copied project directory keeps its original's, so the service refuses to serve both. Re-initialise the copy so it gets its own identity: move its copied .awr/ directory away, run \`awr init --accept\` in its root, and register the new project_id (from \`awr --json status\`)`,
    );
  });

  it.each([
    ["newline", `${TOKEN}\n`],
    ["space", `${TOKEN.slice(0, 20)} ${TOKEN.slice(20)}`],
    ["tab", `\t${TOKEN}`],
  ] as const)("refuses a token with a %s in it", async (name, token) => {
    const { file, env } = await registryIn(name, token);
    await refuses(
      file,
      env,
      `clients[0].token_env: the token in AWR_TEST_TOKEN_ENG contains a space, line break or other character outside visible ASCII; ${tokenRule}`,
    );
  });
});
