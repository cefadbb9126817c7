import { readdir } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { parseCli, parseListen, UsageError } from "@awr/service";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeProject, tempDir, writeRegistry } from "./support/projects.js";
import { killAll, spawnService, stdioClient } from "./support/service-process.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-cli-"));
});
afterEach(() => killAll());
afterAll(async () => {
  await cleanup();
});

describe("awr-mcp's command line", () => {
  it("parses the two modes and refuses mixing them", () => {
    expect(parseCli(["--project", "/srv/p"])).toEqual({ kind: "stdio", project: "/srv/p" });
    expect(parseCli(["--registry", "r.toml", "--listen", "[::1]:8080"])).toEqual({
      kind: "http",
      registry: "r.toml",
      host: "::1",
      port: 8080,
    });
    expect(() => parseCli(["--project", "/p", "--registry", "r.toml"])).toThrow(
      /exclude each other/,
    );
    expect(() => parseCli(["--registry", "r.toml"])).toThrow(/--listen HOST:PORT/);
    expect(() => parseListen("8080")).toThrow(UsageError);
    expect(() => parseCli(["--bogus"])).toThrow(UsageError);
    for (const flag of ["-V", "-v", "--version"]) {
      expect(parseCli([flag])).toEqual({ kind: "version" });
    }
  });

  it("refuses a relative --project path with exit code 2 and the fix", async () => {
    const child = spawnService(["--project", "relative/dir"]);
    expect(await child.exited).toBe(2);
    expect(child.stderr()).toMatch(
      /--project needs an absolute path; got "relative\/dir". Try --project "\/.*relative\/dir"/,
    );
    expect(child.stdout()).toBe("");
  });

  it("refuses to start on a bad registry, printing every problem on its own line", async () => {
    const { root, project_id } = await makeProject(dir, "good");
    const { file, env } = await writeRegistry(
      dir,
      [
        { key: "good", root, project_id: "01WRONGID" },
        { key: "bare", root: join(dir, "bare-missing"), project_id },
      ],
      [{ id: "eng", token: "short", write: ["good", "nowhere"] }],
    );
    const child = spawnService(["--registry", file, "--listen", "127.0.0.1:0"], env);
    expect(await child.exited).toBe(1);
    const lines = child.stderr().trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/projects\[0\]\.project_id: "01WRONGID" does not match/),
      expect.stringMatching(/projects\[1\]\.root: ".*bare-missing" does not exist/),
      expect.stringMatching(/clients\[0\]\.token_env: the token in \S+ has 5 characters/),
      expect.stringMatching(/clients\[0\]\.write: unknown project "nowhere"/),
      "awr-mcp: refusing to start: 4 problem(s) in the registry",
    ]);
    expect(child.stdout()).toBe("");
  });

  it("refuses a --listen address in use with one line naming it and the fix, no stack trace", async () => {
    const { root, project_id } = await makeProject(dir, "busy-port");
    const { file, env } = await writeRegistry(
      dir,
      [{ key: "shop", root, project_id }],
      [{ id: "eng", token: "p".repeat(40), write: ["shop"] }],
    );
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const child = spawnService(["--registry", file, "--listen", `127.0.0.1:${port}`], env);
      expect(await child.exited).toBe(1);
      expect(child.stderr().trim().split("\n")).toEqual([
        `awr-mcp: cannot listen on 127.0.0.1:${port}: the address is already in use by another process; stop that process or pick another --listen address`,
      ]);
      expect(child.stdout()).toBe("");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("serves an uninitialised project over stdio with guidance, creating nothing", async () => {
    const { dir: empty, cleanup: remove } = await tempDir("awr-service-empty-");
    try {
      const { client } = await stdioClient(empty);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(8);
      const result = await client.callTool({
        name: "awr_project_status",
        arguments: { view: "full" },
      });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: "NotFound" });
      expect((result.structuredContent as { message: string }).message).toContain(
        "awr init --accept",
      );
      await client.close();
      expect(await readdir(empty)).toEqual([]);
    } finally {
      await remove();
    }
  });

  it("stops a stdio server on SIGTERM with exit code 0 and logs only on stderr", async () => {
    const { root } = await makeProject(dir, "stdio-signal");
    const child = spawnService(["--project", root]);
    await new Promise<void>((resolve) => {
      child.proc.stderr?.on("data", () => {
        if (child.stderr().includes("serving")) resolve();
      });
    });
    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(child.stdout()).toBe("");
  });
});
