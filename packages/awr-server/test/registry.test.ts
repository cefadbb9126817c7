import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRegistry, loadRegistry, RegistryError, tokenDigest } from "@awr/awr-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeBackend, initFakeProject } from "./support/fake-backend.js";
import { twoProjectRegistry } from "./support/registry-text.js";

const TOKEN_A = "a".repeat(40);
const TOKEN_B = "b".repeat(40);
const WS = "01HZX3W5J8K9M2N4P6Q7R8S9T0";
const { readIdentity } = fakeBackend();

let dir: string;
let billing: string;
let support: string;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "awr-registry-")));
  billing = join(dir, "billing");
  support = join(dir, "support");
  await initFakeProject(billing, "01BILLING");
  await initFakeProject(support, "01SUPPORT");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text, { mode: 0o600 });
  return file;
}

const valid = () =>
  `\n${twoProjectRegistry({
    version: 1,
    head: 'allowed_hosts = ["awr.internal.example"]',
    billing,
    support,
    engineeringTokenEnv: "AWR_ENGINEERING_TOKEN",
    reviewerTokenEnv: "AWR_REVIEWER_TOKEN",
  })}`;
const env = { AWR_ENGINEERING_TOKEN: TOKEN_A, AWR_REVIEWER_TOKEN: TOKEN_B };

describe("the service registry", () => {
  it("loads a valid version 1 file with write implying read and tokens kept only as digests", async () => {
    const registry = await loadRegistry(await write("ok.toml", valid()), env, { readIdentity });
    expect(registry.version).toBe(1);
    expect(registry.projects.map((p) => p.key)).toEqual(["billing", "support"]);
    const [engineering, reviewer] = registry.clients;
    expect([...(engineering?.read ?? [])]).toEqual(["billing", "support"]);
    expect([...(reviewer?.write ?? [])]).toEqual([]);
    expect(engineering?.tokenDigest.equals(tokenDigest(TOKEN_A))).toBe(true);
    expect(JSON.stringify(registry)).not.toContain(TOKEN_A);
  });

  it("reports every problem of a bad file at once, one line each", async () => {
    const file = await write(
      "bad.toml",
      `
version = 1
colour = "blue"

[[projects]]
key = "bad key!"
root = "relative/path"
project_id = "x"

[[projects]]
key = "billing"
root = "${billing}"
project_id = "01WRONG"

[[projects]]
key = "billing"
root = "${dir}"
project_id = "01NONE"

[[clients]]
id = "one"
token_env = "AWR_SHORT"
write = ["billing", "ghost"]

[[clients]]
id = "one"
token_env = "AWR_MISSING"
read = ["billing"]

[[clients]]
id = "two"
token_env = "AWR_SAME"
read = ["billing"]

[[clients]]
id = "three"
token_env = "AWR_SAME_TOO"
surprise = true

[[clients.workstreams]]
project = "billing"
workstream_id = "01HZX3W5J8K9M2N4P6Q7R8S9T0"
authority_version = 1
`,
    );
    const result = await checkRegistry(
      file,
      { AWR_SHORT: "short", AWR_SAME: TOKEN_A, AWR_SAME_TOO: TOKEN_A },
      { readIdentity },
    );
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    const expected = [
      "colour: unknown field",
      'projects[0].key: "bad key!" is not a valid name',
      'projects[0].root: "relative/path" is relative',
      'projects[1].project_id: "01WRONG" does not match',
      "projects[2].root: no initialised AWR ledger",
      'projects: duplicate key "billing"',
      'clients: duplicate id "one"',
      "clients[0].token_env: the token in AWR_SHORT has 5 characters",
      'clients[0].write: unknown project "ghost"',
      "clients[1].token_env: environment variable AWR_MISSING is not set",
      "clients[3].surprise: unknown field",
      'clients[3].token_env: the same token is already used by client "two"',
      "clients[3].workstreams: workstream grants need registry version = 2",
      "clients[3]: grants nothing; give it read or write",
    ];
    for (const fragment of expected) {
      expect(
        problems.some((line) => line.includes(fragment)),
        fragment,
      ).toBe(true);
    }
    expect(problems.every((line) => !line.includes("\n"))).toBe(true);
  });

  it("refuses a non-canonical root and names the canonical one", async () => {
    const link = join(dir, "billing-link");
    await symlink(billing, link);
    const file = await write(
      "link.toml",
      valid().replace(`root = "${billing}"`, `root = "${link}"`),
    );
    const result = await checkRegistry(file, env, { readIdentity });
    expect(result.ok ? [] : result.problems).toEqual([
      `projects[0].root: "${link}" is not canonical; write "${billing}"`,
    ]);
  });

  it("refuses a client without grants and a file over 1 MiB", async () => {
    const empty = await write(
      "empty.toml",
      `${valid()}\n[[clients]]\nid = "idle"\ntoken_env = "AWR_IDLE"\n`,
    );
    const result = await checkRegistry(
      empty,
      { ...env, AWR_IDLE: "c".repeat(32) },
      { readIdentity },
    );
    expect(result.ok ? [] : result.problems).toEqual([
      "clients[2]: grants nothing; give it read or write (workstream grants need one of them)",
    ]);
    const huge = await write("huge.toml", `${valid()}\n# ${"x".repeat(1024 * 1024)}\n`);
    const big = await checkRegistry(huge, env, { readIdentity });
    expect(big.ok ? [] : big.problems[0]).toMatch(/limit is 1048576 \(1 MiB\)/);
  });

  it("accepts workstream grants in version 2: ULIDs, on readable projects, once each", async () => {
    const v2 = valid().replace("version = 1", "version = 2");
    const grant = (project: string, id: string, version: number) =>
      `\n[[clients.workstreams]]\nproject = "${project}"\nworkstream_id = "${id}"\nauthority_version = ${version}\n`;
    const ok = await write("v2.toml", `${v2}${grant("billing", WS.toLowerCase(), 3)}`);
    const registry = await loadRegistry(ok, env, { readIdentity });
    expect(registry.clients[1]?.workstreams).toEqual([
      { project: "billing", workstream_id: WS, authority_version: 3 },
    ]);
    const bad = await write(
      "v2-bad.toml",
      `${v2}${grant("nowhere", WS, 0)}${grant("support", WS, 1)}${grant("billing", "ws-1", 1)}${grant("billing", "00000000000000000000000000", 1)}${grant("billing", WS, 1)}${grant("billing", WS, 2)}`,
    );
    const error = await loadRegistry(bad, env, { readIdentity }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).problems).toEqual([
      "clients[1].workstreams[0].authority_version: must be a positive integer",
      'clients[1].workstreams[2].workstream_id: "ws-1" is not a workstream id (the ULID of its definition in the project\'s ledger; see `awr workstream list`)',
      'clients[1].workstreams[3].workstream_id: "00000000000000000000000000" is not a workstream id (the ULID of its definition in the project\'s ledger; see `awr workstream list`)',
      'clients[1].workstreams[0].project: unknown project "nowhere"',
      'clients[1].workstreams[1].project: workstream grants on "support" need read or write access to it; add it to read',
      `clients[1].workstreams[5].workstream_id: ${WS} is granted twice on "billing"; keep one grant, with the current authority_version`,
    ]);
  });

  it("refuses a token over 4096 characters and one outside visible ASCII", async () => {
    const file = await write("tokens.toml", valid());
    const result = await checkRegistry(
      file,
      { AWR_ENGINEERING_TOKEN: "a".repeat(4097), AWR_REVIEWER_TOKEN: `${TOKEN_B}\u00e9` },
      { readIdentity },
    );
    const rule = "tokens are 32 to 4096 visible ASCII characters (try `awr token new`)";
    expect(result.ok ? [] : result.problems).toEqual([
      `clients[0].token_env: the token in AWR_ENGINEERING_TOKEN has 4097 characters; ${rule}`,
      `clients[1].token_env: the token in AWR_REVIEWER_TOKEN contains a space, line break or other character outside visible ASCII; ${rule}`,
    ]);
  });

  it("refuses a credential written into the file, naming its line and never its value", async () => {
    const inline = `sk-proj-${"Q7x".repeat(16)}`;
    const text = valid().replace(
      'token_env = "AWR_REVIEWER_TOKEN"',
      `token_env = "AWR_REVIEWER_TOKEN"\ntoken = "${inline}"`,
    );
    const result = await checkRegistry(await write("inline.toml", text), env, { readIdentity });
    const problems = result.ok ? [] : result.problems;
    const line = text.split("\n").findIndex((l) => l.includes(inline)) + 1;
    expect(problems[0]).toMatch(
      new RegExp(
        `^line ${line}: holds a credential \\(\\w+\\); a client names the environment variable`,
      ),
    );
    expect(problems.join("\n")).not.toContain("Q7xQ7x");
    await expect(
      loadRegistry(await write("inline.toml", text), env, { readIdentity }),
    ).rejects.not.toThrow(/Q7xQ7x/);
  });

  it("describes a token pasted into token_env without repeating it", async () => {
    // What `awr token new` prints: base64url, so it may or may not be a valid variable name.
    for (const pasted of [
      "0qXJuCRSxzvKGUJl9O5dRE1F6pmIwZue4QdCijvdeig",
      "0qXJuC-SxzvKGUJl9O5dRE1F6pmIwZue4QdCijvdeig",
    ]) {
      const text = valid().replace('token_env = "AWR_REVIEWER_TOKEN"', `token_env = "${pasted}"`);
      const result = await checkRegistry(await write("pasted.toml", text), env, { readIdentity });
      expect(result.ok ? [] : result.problems).toEqual([
        'clients[1].token_env: looks like a token, not the name of an environment variable; put the token in a variable (export NAME="…") and write NAME here',
      ]);
    }
    // An unset variable with an ordinary name is still named.
    const unset = valid().replace("AWR_REVIEWER_TOKEN", "AWR_UNSET_TOKEN");
    const named = await checkRegistry(await write("unset.toml", unset), env, { readIdentity });
    expect(named.ok ? [] : named.problems).toEqual([
      "clients[1].token_env: environment variable AWR_UNSET_TOKEN is not set",
    ]);
  });

  it("refuses two projects with one project_id (a copied directory), naming both keys, the id and the fix", async () => {
    const copy = join(dir, "billing-copy");
    await initFakeProject(copy, "01BILLING"); // what `cp -r billing billing-copy` leaves
    const text = valid().replace(
      "[[clients]]",
      `[[projects]]\nkey = "billing-copy"\nroot = "${copy}"\nproject_id = "01BILLING"\n\n[[clients]]`,
    );
    const result = await checkRegistry(await write("copy.toml", text), env, { readIdentity });
    expect(result.ok ? [] : result.problems).toEqual([
      `projects: "billing" and "billing-copy" have the same project_id "01BILLING" on different roots ("${billing}" and "${copy}"); a project_id names one ledger, and a copied project directory keeps its original's, so the service refuses to serve both. Re-initialise the copy so it gets its own identity: move its copied .awr/ directory away, run \`awr init --accept\` in its root, and register the new project_id (from \`awr --json status\`)`,
    ]);
  });

  it("tells a token variable that is set but empty from one that is not set", async () => {
    const result = await checkRegistry(
      await write("empty-token.toml", valid()),
      { AWR_ENGINEERING_TOKEN: "", AWR_REVIEWER_TOKEN: TOKEN_B },
      { readIdentity },
    );
    expect(result.ok ? [] : result.problems).toEqual([
      "clients[0].token_env: environment variable AWR_ENGINEERING_TOKEN is set but empty; set it to the client's token (32 to 4096 visible ASCII characters; try `awr token new`)",
    ]);
    const unset = await checkRegistry(
      await write("unset-token.toml", valid()),
      { AWR_REVIEWER_TOKEN: TOKEN_B },
      { readIdentity },
    );
    expect(unset.ok ? [] : unset.problems).toEqual([
      "clients[0].token_env: environment variable AWR_ENGINEERING_TOKEN is not set",
    ]);
  });

  it("reports a TOML syntax error with its line", async () => {
    const file = await write("syntax.toml", 'version = 1\n[[projects]\nkey = "x"\n');
    const result = await checkRegistry(file, env, { readIdentity });
    expect(result.ok ? "" : result.problems[0]).toMatch(/^line 2, column \d+: /);
  });

  it("rejects with the abort reason when cancelled", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    const file = await write("abort.toml", valid());
    await expect(
      checkRegistry(file, env, { readIdentity, signal: controller.signal }),
    ).rejects.toBe(reason);
  });

  it("needs an existing file", async () => {
    await mkdir(join(dir, "sub"), { recursive: true });
    const result = await checkRegistry(join(dir, "sub", "none.toml"), env, { readIdentity });
    expect(result.ok ? "" : result.problems[0]).toMatch(/^cannot read the file/);
  });
});
