import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { initProject, isLedgerError, openLedger } from "@awr/awr-ledger";
import { SOURCE_ADAPTERS } from "@awr/awr-ledger/sources";
import { afterEach, describe, expect, it } from "vitest";
import { tempRoot } from "./helpers/backends.js";

const caller = { client: "stdio" };

/** A small project whose GOALS.md the test replaces with something hostile. */
function project(): { root: string; goals: string; remove(): void } {
  const { root, remove } = tempRoot();
  writeFileSync(
    join(root, "work-ledger.yaml"),
    "work_items:\n  - id: W-1\n    title: t\n    status: ready\n",
  );
  writeFileSync(join(root, "GOALS.md"), "## Ship {#ship}\n\nThe goal.\n");
  writeFileSync(
    join(root, "project.toml"),
    '[project]\nname = "hostile"\n[[sources]]\ndomain = "ledger"\nrole = "primary"\npath = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n[[sources]]\ndomain = "goal"\nrole = "supporting"\npath = "GOALS.md"\nadapter = "markdown-heading-v1"\n',
  );
  return { root, goals: join(root, "GOALS.md"), remove };
}

async function refused(root: string): Promise<Error & { code: string }> {
  const error = await initProject({
    root,
    manifest: join(root, "project.toml"),
    accept: true,
  }).catch((e: unknown) => e);
  if (!isLedgerError(error)) throw new Error(`expected a LedgerError, got ${String(error)}`);
  return error;
}

describe("hostile sources are refused clearly, quickly, and change nothing", () => {
  let p: ReturnType<typeof project> | undefined;
  afterEach(() => {
    p?.remove();
    p = undefined;
  });

  it("a FIFO: InvalidInput naming the source, without blocking on the open or the read", async () => {
    p = project();
    rmSync(p.goals);
    execFileSync("mkfifo", [p.goals]);
    const error = await refused(p.root);
    expect(error.code).toBe("InvalidInput");
    expect(error.message).toMatch(/GOALS\.md is a FIFO/);
  });

  it("a FIFO put in place of an indexed source: reads answer SourceStale, the reindex InvalidInput", async () => {
    p = project();
    await initProject({ root: p.root, manifest: join(p.root, "project.toml"), accept: true });
    const ledger = await openLedger({ root: p.root });
    try {
      rmSync(p.goals);
      execFileSync("mkfifo", [p.goals]);
      const stale = await ledger
        .call("awr_project_status", { view: "full" }, caller)
        .catch((e: unknown) => e);
      expect(isLedgerError(stale, "SourceStale")).toBe(true);
      const reindex = await ledger
        .call("awr_source_reindex", { expected_revision: 1 }, caller)
        .catch((e: unknown) => e);
      expect(isLedgerError(reindex, "InvalidInput")).toBe(true);
      expect((reindex as Error).message).toMatch(/GOALS\.md is a FIFO/);
    } finally {
      await ledger.close();
    }
  });

  it("a socket: InvalidInput naming the source", async () => {
    p = project();
    rmSync(p.goals);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(p?.goals, resolve));
    try {
      const error = await refused(p.root);
      expect(error.code).toBe("InvalidInput");
      expect(error.message).toMatch(/GOALS\.md is a socket/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a directory given to a file adapter: InvalidInput naming the source and the directory adapter", async () => {
    p = project();
    rmSync(p.goals);
    mkdirSync(p.goals);
    const error = await refused(p.root);
    expect(error.code).toBe("InvalidInput");
    expect(error.message).toMatch(/GOALS\.md is a directory.*markdown-directory-v1/);
  });

  it("a symlink loop: InvalidInput naming the source", async () => {
    p = project();
    rmSync(p.goals);
    symlinkSync("GOALS.md", p.goals);
    const error = await refused(p.root);
    expect(error.code).toBe("InvalidInput");
    expect(error.message).toMatch(/GOALS\.md" is a symlink loop/);
  });

  it("a million headings: refused by the entity cap before the parser builds them", async () => {
    p = project();
    writeFileSync(p.goals, "#\n".repeat(1_000_000));
    const error = await refused(p.root);
    expect(error.code).toBe("InvalidInput");
    expect(error.message).toMatch(
      /about 1000000 headings, over its cap of 20000 entities.*max_entities/,
    );
  });

  it("a file over its byte cap: refused naming the size and the option that raises it", async () => {
    p = project();
    writeFileSync(p.goals, `## Big\n\n${"x".repeat(3 * 1024 * 1024)}\n`);
    const error = await refused(p.root);
    expect(error.message).toMatch(
      /GOALS\.md is \d+ bytes, over its cap of 2097152 bytes.*max_bytes/,
    );
  });

  it("leaves the project as it was after each refusal: no .awr/, no .gitignore", async () => {
    p = project();
    rmSync(p.goals);
    mkdirSync(p.goals);
    await refused(p.root);
    const listing = execFileSync("ls", ["-A", p.root], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .sort();
    expect(listing).toEqual(["GOALS.md", "project.toml", "work-ledger.yaml"]);
  });
});

describe("hostile content is an error of the source, not of the process", () => {
  it("a YAML alias bomb", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(", ")}]`,
      );
    }
    const text = `${levels.join("\n")}\nwork_items:\n  - id: W-1\n    title: *i\n`;
    const result = SOURCE_ADAPTERS["yaml-ledger-v1"](text, {
      path: "w.yaml",
      domain: "ledger",
      options: {},
    });
    expect(result.entities).toEqual([]);
    expect(result.issues[0]).toMatchObject({
      severity: "error",
      message: expect.stringMatching(/aliases expand to too much data/),
    });
  });

  it("invalid UTF-8: indexed, with a warning naming the line", async () => {
    const p = project();
    try {
      writeFileSync(
        p.goals,
        Buffer.concat([
          Buffer.from("## Ship {#ship}\n\nFirst line.\n"),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(" bad bytes\n"),
        ]),
      );
      const result = await initProject({
        root: p.root,
        manifest: join(p.root, "project.toml"),
        accept: true,
      });
      expect(result.sources.find((s) => s.path === "GOALS.md")?.entity_count).toBe(1);
      expect(result.issues).toContainEqual(
        expect.objectContaining({
          path: "GOALS.md",
          line: 4,
          severity: "warning",
          message: expect.stringMatching(/not valid UTF-8 at byte 29/),
        }),
      );
    } finally {
      p.remove();
    }
  });
});
