import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";
import { GUARD, type Inspector, raw, startInspector } from "./support/inspector.js";

/**
 * `awr inspector`'s request boundary, over raw HTTP against the real binary: Host, Origin,
 * Sec-Fetch-Site and the guard header, the headers on every answer, the bounds (body, page
 * size, concurrent work, live streams), unknown routes and methods, and static files.
 */

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

let inspector: Inspector;
let narrow: Inspector;

beforeAll(async () => {
  const root = await demoProject();
  [inspector, narrow] = await Promise.all([
    startInspector(["--project", root]),
    // One API request at a time: the second of two at once is refused.
    startInspector(["--project", root], { AWR_INSPECTOR_CONCURRENT: "1" }),
  ]);
}, 60_000);

afterAll(async () => {
  const stops = await Promise.all([inspector?.stop(), narrow?.stop("SIGINT")]);
  for (const stop of stops) {
    expect(stop?.code).toBe(0);
    expect(stop?.ms).toBeLessThan(10_000);
  }
  await removeTemps();
}, 30_000);

describe("awr inspector: start and stop", () => {
  it("listens on 127.0.0.1 and prints exactly one line, the URL", () => {
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(inspector.stdout()).toBe(`${JSON.stringify({ url: inspector.url })}\n`);
    expect(inspector.port).toBeGreaterThan(0);
  });

  it("refuses a malformed --port, a port in use and remote mode before serving", async () => {
    const root = await demoProject();
    for (const port of ["x", "-1", "65536", "80.5"]) {
      const run = await awr(["--project", root, "--json", "inspector", "--port", port]);
      expect({ port, code: run.code }).toEqual({ port, code: 2 });
      expect(run.error().code).toBe("InvalidInput");
    }
    const taken = await awr(
      [
        "--project",
        root,
        "--json",
        "inspector",
        "--no-open",
        "--port",
        String(inspector.port),
        // Were it to serve after all, the run still ends.
      ],
      { signal: AbortSignal.timeout(10_000) },
    );
    expect(taken.code).toBe(2);
    expect(taken.error().message).toContain("--port 0");
    const remote = await awr(["--url", "http://127.0.0.1:9/mcp", "inspector"]);
    expect(remote.code).toBe(2);
  });

  it("stops by itself once its test lifetime is over", async () => {
    const root = await demoProject();
    const short = await startInspector(["--project", root], {
      AWR_INSPECTOR_LIFETIME_MS: "500",
    });
    const exit = await new Promise<number | null>((resolve) => {
      if (short.child.exitCode !== null) resolve(short.child.exitCode);
      else short.child.once("exit", (code) => resolve(code));
    });
    expect(exit).toBe(0);
  }, 30_000);
});

describe("awr inspector: the request boundary", () => {
  const get = (path: string, headers: Record<string, string> = {}) =>
    raw(inspector.port, { path, headers });

  it("answers its own Host, 127.0.0.1 or localhost with its port", async () => {
    expect((await get("/api/health")).status).toBe(200);
    const local = await get("/api/health", { host: `localhost:${inspector.port}` });
    expect(local.status).toBe(200);
    expect(local.json()).toMatchObject({ ok: true, data: { mode: "live", allowReindex: false } });
  });

  it("refuses any other Host (DNS rebinding), on the API and the page alike", async () => {
    for (const host of [
      "attacker.example",
      `attacker.example:${inspector.port}`,
      `127.0.0.1:${inspector.port + 1}`,
      "127.0.0.1",
      `[::1]:${inspector.port}`,
      `127.0.0.1.nip.io:${inspector.port}`,
    ]) {
      for (const path of ["/api/health", "/"]) {
        const answer = await get(path, { host });
        expect({ host, path, status: answer.status }).toEqual({ host, path, status: 403 });
        expect(answer.json()).toMatchObject({ ok: false, error: { code: "ForbiddenHost" } });
        // The project's path is not told to a page that is not ours.
        expect(answer.text).not.toContain("bookshop");
      }
    }
  });

  it("refuses a foreign Origin and Origin: null, accepts its own", async () => {
    for (const origin of ["https://attacker.example", "null", `http://127.0.0.1:1`]) {
      const answer = await get("/api/status", { origin });
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 });
      expect(answer.json()).toMatchObject({ error: { code: "ForbiddenOrigin" } });
    }
    for (const origin of [
      `http://127.0.0.1:${inspector.port}`,
      `http://localhost:${inspector.port}`,
    ]) {
      expect((await get("/api/health", { origin })).status).toBe(200);
    }
  });

  it("refuses Sec-Fetch-Site cross-site and same-site, accepts same-origin and none", async () => {
    for (const site of ["cross-site", "same-site"]) {
      const answer = await get("/api/health", { "sec-fetch-site": site });
      expect(answer.status).toBe(403);
      expect(answer.json()).toMatchObject({ error: { code: "ForbiddenSite" } });
    }
    for (const site of ["same-origin", "none"]) {
      expect((await get("/api/health", { "sec-fetch-site": site })).status).toBe(200);
    }
  });

  it("refuses every non-GET request without X-AWR-Inspector: 1 (a cross-site form)", async () => {
    for (const headers of [
      { "content-type": "application/x-www-form-urlencoded" } as Record<string, string>,
      { "x-awr-inspector": "0" },
    ]) {
      const answer = await raw(inspector.port, {
        method: "POST",
        path: "/api/source/reindex",
        headers,
        body: "x=1",
      });
      expect(answer.status).toBe(403);
      expect(answer.json()).toMatchObject({ error: { code: "MissingGuardHeader" } });
    }
    const head = await raw(inspector.port, { method: "HEAD", path: "/api/health" });
    expect(head.status).toBe(403);
    const guarded = await raw(inspector.port, {
      method: "HEAD",
      path: "/api/health",
      headers: GUARD,
    });
    expect(guarded.status).toBe(200);
    expect(guarded.text).toBe("");
  });

  it("sends the strict CSP, nosniff, no-referrer and no-store on every answer", async () => {
    const answers = [
      await get("/api/health"),
      await get("/api/overview"),
      await get("/api/nothing-here"),
      await get("/api/health", { host: "attacker.example" }),
      await get("/"),
      await get("/app.js"),
      await get("/missing.js"),
      await raw(inspector.port, { method: "PUT", path: "/api/health", headers: GUARD }),
    ];
    for (const answer of answers) {
      expect(answer.headers["content-security-policy"]).toBe(CSP);
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["referrer-policy"]).toBe("no-referrer");
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
    }
  });

  it("answers unknown routes 404 JSON and methods other than GET, HEAD and POST 405", async () => {
    const missing = await get("/api/nothing-here");
    expect(missing.status).toBe(404);
    expect(missing.headers["content-type"]).toMatch(/^application\/json/);
    expect(missing.json()).toMatchObject({ ok: false, error: { code: "NoRoute" } });
    for (const method of ["PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const answer = await raw(inspector.port, { method, path: "/api/health", headers: GUARD });
      expect({ method, status: answer.status }).toEqual({ method, status: 405 });
      expect(answer.headers["allow"]).toBe("GET, HEAD, POST");
    }
    // A known route asked with the wrong one of the three.
    const posted = await raw(inspector.port, {
      method: "POST",
      path: "/api/status",
      headers: GUARD,
    });
    expect(posted.status).toBe(405);
  });

  it("bounds request bodies at 16 KiB (413), declared or streamed", async () => {
    const big = JSON.stringify({ work: "W-2", intent: "x".repeat(17 * 1024) });
    const declared: Record<string, string>[] = [
      { "content-length": String(Buffer.byteLength(big)) },
      {},
    ];
    for (const headers of declared) {
      const answer = await raw(inspector.port, {
        method: "POST",
        path: "/api/context/compile",
        headers: { ...GUARD, "content-type": "application/json", ...headers },
        body: big,
      });
      expect(answer.status).toBe(413);
      expect(answer.json()).toMatchObject({ ok: false, error: { code: "BodyTooLarge" } });
    }
    const malformed = await raw(inspector.port, {
      method: "POST",
      path: "/api/context/compile",
      headers: GUARD,
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
  });

  it("bounds queue pages at 100 entries", async () => {
    const page = await get("/api/work-page?queue=ready&offset=0&limit=100");
    expect(page.json()).toMatchObject({ ok: true, data: { page: { page_size: 100 } } });
    for (const query of [
      "queue=ready&offset=0&limit=101",
      "queue=ready&offset=-1&limit=10",
      "queue=ready&offset=0&limit=0",
      "queue=everything&offset=0&limit=10",
      "queue=ready&offset=0&limit=1e2",
    ]) {
      const answer = await get(`/api/work-page?${query}`);
      expect({ query, status: answer.status }).toEqual({ query, status: 400 });
      expect(answer.json()).toMatchObject({ ok: false, error: { code: "BadRequest" } });
    }
    expect((await get("/api/ready?limit=101")).status).toBe(400);
    expect((await get("/api/sessions?limit=500")).status).toBe(400);
    expect((await get(`/api/search?text=${encodeURIComponent("a\u0000b")}`)).status).toBe(400);
  });

  it("bounds concurrent API work: a request past the limit is 503 with Retry-After", async () => {
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        raw(narrow.port, {
          method: "POST",
          path: "/api/context/compile",
          headers: GUARD,
          body: JSON.stringify({ work: "W-2" }),
        }),
      ),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(answers.some((a) => a.status === 200)).toBe(true);
    for (const answer of busy) {
      expect(answer.headers["retry-after"]).toBe("1");
      expect(answer.json()).toMatchObject({ ok: false, error: { code: "BridgeBusy" } });
    }
    // The slots come back: one request alone is answered.
    expect((await raw(narrow.port, { path: "/api/health" })).status).toBe(200);
  });

  it("bounds live streams (16 at once)", async () => {
    const { request } = await import("node:http");
    const open = await Promise.all(
      Array.from(
        { length: 16 },
        () =>
          new Promise<import("node:http").ClientRequest>((resolve, reject) => {
            const req = request(
              { host: "127.0.0.1", port: narrow.port, path: "/api/live", agent: false },
              (res) => {
                expect(res.statusCode).toBe(200);
                resolve(req);
              },
            );
            req.on("error", reject);
            req.end();
          }),
      ),
    );
    try {
      const refused = await raw(narrow.port, { path: "/api/live" });
      expect(refused.status).toBe(503);
      expect(refused.headers["retry-after"]).toBe("1");
    } finally {
      for (const req of open) req.destroy();
    }
  });
});

describe("awr inspector: static files", () => {
  it("serves the page, its script and its style, none of them inline", async () => {
    const page = await raw(inspector.port, { path: "/" });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.text).toContain('<script src="/app.js"');
    expect(page.text).not.toMatch(/<script>|<style|style="/);
    const script = await raw(inspector.port, { path: "/app.js" });
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.text).toContain("/api/overview");
    expect((await raw(inspector.port, { path: "/style.css" })).headers["content-type"]).toBe(
      "text/css; charset=utf-8",
    );
  });

  it("refuses path traversal, encoded or not", async () => {
    for (const path of [
      "/../package.json",
      "/../../package.json",
      "/%2e%2e/%2e%2e/package.json",
      "/..%2f..%2fpackage.json",
      "/%2e%2e%2f%2e%2e%2fpackage.json",
      "/..\\..\\package.json",
      "/%5c..%5cpackage.json",
      "/app.js%00.css",
      "/.hidden.js",
      "//etc/passwd",
    ]) {
      const answer = await raw(inspector.port, { path });
      expect({ path, refused: [400, 403, 404].includes(answer.status) }).toEqual({
        path,
        refused: true,
      });
      expect(answer.text).not.toContain('"name"');
      expect(answer.text).not.toContain("root:");
    }
    expect((await raw(inspector.port, { path: "/../package.json" })).status).toBe(403);
    expect((await raw(inspector.port, { path: "/nothing.js" })).status).toBe(404);
  });
});
