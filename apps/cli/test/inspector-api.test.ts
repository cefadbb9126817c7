import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { appendFile, readdir, readFile } from "node:fs/promises";
import { request } from "node:http";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoProject, removeTemps } from "./support/cli-harness.js";
import { awrBin, GUARD, type Inspector, raw, startInspector } from "./support/inspector.js";

/**
 * `awr inspector`'s JSON API against the real binary: the original inspector's routes answer
 * with the ledger's own numbers, it never writes a project file (hashed before and after every
 * route, a refused and an allowed reindex included), /api/live reports a write by another
 * process within 2 s, and --demo serves a throwaway copy of the bookshop.
 */

let root: string;
let plain: Inspector;
let reindexing: Inspector;

/** The CLI's own answer, from another process. */
function awrJson(...words: string[]): Record<string, unknown> {
  const result = spawnSync(process.execPath, [awrBin(), "--project", root, "--json", ...words], {
    encoding: "utf8",
    env: { PATH: process.env["PATH"] },
  });
  if (result.status !== 0) throw new Error(`awr ${words.join(" ")}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** sha256 of every file of the project but the ledger's own database. */
async function hashes(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (!/^state\.db(-wal|-shm|-journal)?$/.test(entry.name)) {
        found[relative(dir, path)] = createHash("sha256")
          .update(await readFile(path))
          .digest("hex");
      }
    }
  };
  await walk(dir);
  return found;
}

const api = (inspector: Inspector, path: string) =>
  raw(inspector.port, { path }).then((a) => ({ status: a.status, body: a.json() }));

const post = (inspector: Inspector, path: string, body?: unknown) =>
  raw(inspector.port, {
    method: "POST",
    path,
    headers: { ...GUARD, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then((a) => ({ status: a.status, body: a.json() }));

beforeAll(async () => {
  root = await demoProject();
  [plain, reindexing] = await Promise.all([
    startInspector(["--project", root]),
    startInspector(["--project", root, "--allow-reindex"]),
  ]);
}, 60_000);

afterAll(async () => {
  const stops = await Promise.all([plain?.stop("SIGINT"), reindexing?.stop()]);
  for (const stop of stops) {
    expect(stop?.code).toBe(0);
    expect(stop?.ms).toBeLessThan(10_000);
  }
  await removeTemps();
}, 30_000);

describe("awr inspector: the JSON API", () => {
  it("answers /api/overview and /api/work-page with the ledger's own numbers", async () => {
    const status = awrJson("status");
    const overview = await api(plain, "/api/overview");
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({
      ok: true,
      data: {
        project_revision: status["project_revision"],
        current_total: status["current_total"],
        ready_count: status["ready_count"],
        waiting_count: status["waiting_count"],
        blocked_count: status["blocked_count"],
      },
    });
    const page = await api(plain, "/api/work-page?queue=ready&offset=0&limit=10");
    const cli = awrJson("status", "--queue", "ready", "--offset", "0", "--page-size", "10");
    expect(page.body["command"]).toBe(
      `awr --project ${root} --json status --queue ready --offset 0 --page-size 10`,
    );
    const data = page.body["data"] as Record<string, unknown>;
    expect(data["page"]).toEqual(cli["page"]);
    expect(data["ready"]).toEqual(cli["ready"]);
  });

  it("answers the original's routes in its envelope", async () => {
    const key = (awrJson("status")["ready"] as { key: string }[])[0]?.key as string;
    const work = await api(plain, `/api/work?key=${encodeURIComponent(key)}`);
    expect(work.body).toMatchObject({ ok: true, data: awrJson("work", "show", key) });
    const search = await api(plain, "/api/search?text=cart&limit=5");
    expect(search.body).toMatchObject({ ok: true, command: expect.stringContaining("search") });
    for (const path of [
      "/api/status",
      "/api/status?view=full",
      "/api/ready?limit=3",
      "/api/sources",
      "/api/sessions",
      "/api/events?limit=5",
      `/api/graph?root=${encodeURIComponent(key)}&limit=10`,
      "/api/graph",
    ]) {
      const answer = await api(plain, path);
      expect({ path, status: answer.status, ok: answer.body["ok"] }).toEqual({
        path,
        status: 200,
        ok: true,
      });
      expect(typeof (answer.body["data"] as Record<string, unknown>)["project_revision"]).toBe(
        "number",
      );
    }
    const missing = await api(plain, "/api/work?key=NOPE-404");
    expect(missing.body).toMatchObject({ ok: false, error: { code: "NotFound" } });
    expect((await api(plain, "/api/work")).status).toBe(400);
    expect((await api(plain, "/api/mainline-nav")).body).toMatchObject({
      ok: false,
      error: { code: "Unsupported" },
    });
    // A refusal that carries a report keeps it (an incomplete packet's completeness).
    const compiled = await post(plain, "/api/context/compile", { work: key, budget: 8000 });
    expect(compiled.status).toBe(200);
    const packet = compiled.body["data"] as Record<string, unknown>;
    expect(packet["completeness"]).toBeDefined();
    expect((await post(plain, "/api/context/compile", { work: key, budget: 0 })).status).toBe(400);
  });

  it("never writes a project file, whatever route runs; reindex only with --allow-reindex", async () => {
    // Someone edits a source (not the inspector): only a reindex indexes it, into the ledger.
    await appendFile(join(root, "GOALS.md"), "\nA line added by hand.\n");
    const before = await hashes(root);
    const revision = awrJson("status", "--cached")["project_revision"] as number;

    const refused = await post(plain, "/api/source/reindex");
    expect(refused.body).toMatchObject({ ok: false, error: { code: "ReindexNotAllowed" } });
    const key = (awrJson("status", "--cached")["ready"] as { key: string }[])[0]?.key as string;
    for (const inspector of [plain, reindexing]) {
      for (const path of [
        "/api/health",
        "/api/overview",
        "/api/status",
        "/api/status?view=summary",
        "/api/work-page?queue=blocked&offset=0&limit=5",
        "/api/ready",
        `/api/work?key=${key}`,
        "/api/search?text=order",
        "/api/sources",
        "/api/sessions",
        "/api/events",
        "/api/graph",
        "/api/mainline-nav",
        "/",
        "/app.js",
        "/style.css",
      ]) {
        expect((await raw(inspector.port, { path })).status).toBeLessThan(500);
      }
      await post(inspector, "/api/context/compile", { work: key });
    }
    const allowed = await post(reindexing, "/api/source/reindex");
    expect(allowed.body).toMatchObject({
      ok: true,
      command: `awr --project ${root} --json source reindex`,
    });
    expect(
      (allowed.body["data"] as Record<string, unknown>)["project_revision"],
    ).toBeGreaterThanOrEqual(revision);
    expect(await hashes(root)).toEqual(before);
    expect(awrJson("source", "scan")["changed_paths"]).toEqual([]);
  });
});

describe("awr inspector: /api/live", () => {
  it("sends a summary at once and again within 2 s of another process's write", async () => {
    const messages: Record<string, unknown>[] = [];
    let wake: () => void = () => {};
    const req = request({ host: "127.0.0.1", port: plain.port, path: "/api/live", agent: false });
    try {
      await new Promise<void>((resolve, reject) => {
        req.on("error", reject);
        req.on("response", (res) => {
          expect(res.statusCode).toBe(200);
          expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
          let buffer = "";
          res.setEncoding("utf8").on("data", (chunk: string) => {
            buffer += chunk;
            let end = buffer.indexOf("\n\n");
            while (end >= 0) {
              const data = buffer
                .slice(0, end)
                .split("\n")
                .filter((l) => l.startsWith("data: "))
                .map((l) => l.slice(6))
                .join("\n");
              buffer = buffer.slice(end + 2);
              if (data !== "") {
                messages.push(JSON.parse(data) as Record<string, unknown>);
                wake();
              }
              end = buffer.indexOf("\n\n");
            }
          });
          resolve();
        });
        req.end();
      });
      const next = (count: number, ms: number) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no live message in ${ms} ms`)), ms);
          wake = () => {
            if (messages.length >= count) {
              clearTimeout(timer);
              resolve();
            }
          };
          wake();
        });
      await next(1, 10_000);
      const first = messages[0] as Record<string, Record<string, unknown>>;
      expect(first["project_revision"]).toBe(awrJson("status")["project_revision"]);
      expect(first["sessions"]).toMatchObject({ active: 0 });
      expect(first["waits"]).toHaveProperty("waiting_count");
      expect(first["checkpoints"]).toHaveProperty("sessions_with_checkpoint");

      const key = (awrJson("status")["ready"] as { key: string }[])[0]?.key as string;
      const count = messages.length;
      const started = awrJson(
        "session",
        "start",
        "--work",
        key,
        "--agent",
        "live-test",
        "--provider",
        "test",
        "--model",
        "m-1",
      );
      const written = Date.now();
      await next(count + 1, 2_000);
      expect(Date.now() - written).toBeLessThan(2_000);
      const last = messages.at(-1) as Record<string, Record<string, unknown>>;
      expect(last["project_revision"]).toBe(awrJson("status", "--cached")["project_revision"]);
      expect(last["sessions"]).toMatchObject({
        active: 1,
        items: [{ agent_id: "live-test", work: key }],
      });
      expect(started).toBeDefined();
    } finally {
      req.destroy();
    }
  }, 30_000);
});

describe("awr inspector --demo", () => {
  it("serves a fresh copy of the bookshop and removes it when stopped", async () => {
    const demo = await startInspector(["--demo"]);
    let project: string | undefined;
    try {
      const health = await api(demo, "/api/health");
      expect(health.body).toMatchObject({ ok: true, data: { mode: "demo" } });
      project = (health.body["data"] as { project: string }).project;
      expect(existsSync(join(project, ".awr", "project.toml"))).toBe(true);
      const overview = await api(demo, "/api/overview");
      expect(overview.body).toMatchObject({ ok: true, data: { project_work_total: 8 } });
    } finally {
      const stop = await demo.stop();
      expect(stop.code).toBe(0);
    }
    expect(existsSync(project as string)).toBe(false);
  }, 60_000);
});
