#!/usr/bin/env node
// CI: the original AWR's workstream fixtures load and are served unchanged. DIR holds its
// synthetic fixtures (context/context.toml, context/context.yaml, ledger/ledger.yaml); they are
// copied to temporary projects as the original's tests assemble them: context.toml becomes
// .awr/project.toml, context.yaml becomes work.yaml (the ledger it names) and a rules file of
// our own is written for its `rules.md`; ledger.yaml gets a manifest naming it with adapter
// yaml-workstream-ledger-v1. Each is initialised with the built `awr`, and
// `awr workstream list` must show its two workstreams. The first is then served by the built
// awr-mcp with a version 2 registry and read through the official SDK client: `list` shows both
// streams to the exactly granted client and none to a project-only or an outdated grant,
// `context` of API-1 is complete without the other stream's data, and the workstream error
// codes answer. Fails when anything differs or a fixture byte changed.
//
//   node scripts/check-real-workstreams.mjs DIR
//
// Needs `pnpm build` first. A missing DIR is skipped with a message (exit 0).
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { awr } from "./awr-json.mjs";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const CLI = join(ROOT, "apps/cli/dist/main.js");
const SERVICE = join(ROOT, "apps/service/dist/main.js");
const API = "01K00000000000000000000001";
const CLIENT = "01K00000000000000000000002";
const RULES =
  "# Approved requirements stay {#approved severity=hard}\n\nA change keeps every approved requirement.\n";

const dirArgument = process.argv[2];
if (dirArgument === undefined) {
  console.error("usage: node scripts/check-real-workstreams.mjs DIR");
  process.exit(2);
}
const dir = dirArgument;
if (!existsSync(dir)) {
  console.log(
    `skipped: ${dir} does not exist (no workstream fixtures of the original on this machine)`,
  );
  process.exit(0);
}
for (const built of [CLI, SERVICE]) {
  if (!existsSync(built)) {
    console.error(`${relative(ROOT, built)} is missing: run \`pnpm build\` first`);
    process.exit(2);
  }
}
const sdk = createRequire(join(ROOT, "apps/service/package.json"));
const { Client } = await import(sdk.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StreamableHTTPClientTransport } = await import(
  sdk.resolve("@modelcontextprotocol/sdk/client/streamableHttp.js")
);

/** @param {string} file */
const hash = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
/** @param {boolean} ok @param {string} message */
const check = (ok, message) => {
  if (!ok) throw new Error(message);
};

/**
 * A temporary project: `files` maps a path in the project to a fixture file (or text).
 * @param {Record<string, { file: string; text?: undefined } | { text: string; file?: undefined }>} files
 */
function assemble(files) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "awr-real-workstreams-")));
  mkdirSync(join(root, ".awr"));
  for (const [path, from] of Object.entries(files)) {
    if (from.text !== undefined) writeFileSync(join(root, path), from.text);
    else cpSync(join(dir, /** @type {string} */ (from.file)), join(root, path));
  }
  execFileSync("chmod", ["-R", "u+w", root]);
  return root;
}

/**
 * Initialises the project and checks `awr workstream list` shows the fixture's two streams.
 * @param {string} name
 * @param {string} root
 * @param {string[]} copied the fixture files in the project, which must not change
 * @returns {string} the project's id
 */
function initAndList(name, root, copied) {
  const before = Object.fromEntries(copied.map((path) => [path, hash(join(root, path))]));
  const init = awr(root, ["init", "--accept"]);
  const errors = init.issues.filter(
    (/** @type {{ severity: string }} */ i) => i.severity === "error",
  );
  check(errors.length === 0, `init reported errors: ${JSON.stringify(errors)}`);
  const listing = awr(root, ["workstream", "list"]);
  /** @type {{ external_key: string; id: string; authority_version: number; work_items: number }[]} */
  const workstreams = listing.workstreams;
  const streams = workstreams.map((w) => `${w.external_key}=${w.id}@${w.authority_version}`);
  check(listing.enabled === true, `workstreams are not served: ${JSON.stringify(listing)}`);
  check(
    JSON.stringify(streams) === JSON.stringify([`api=${API}@1`, `client=${CLIENT}@1`]),
    `expected the api and client workstreams, got ${streams.join(", ")}`,
  );
  for (const [path, digest] of Object.entries(before))
    check(hash(join(root, path)) === digest, `${path} changed`);
  console.log(
    `ok    ${name}: workstreams ${streams.join(", ")} (${workstreams.map((w) => `${w.work_items} item`).join(", ")})`,
  );
  return init.project_id;
}

/**
 * Starts the built awr-mcp on an ephemeral port; resolves with its URL and a stop().
 * @param {string} registry the service registry's file
 * @param {Record<string, string>} env added to this process's environment
 */
async function serve(registry, env) {
  const child = spawn(
    process.execPath,
    [SERVICE, "--registry", registry, "--listen", "127.0.0.1:0"],
    {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  /** @type {string} */
  const url = await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`awr-mcp did not start:\n${stderr}`)), 20_000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        done(/** @type {string} */ (match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`awr-mcp exited (${code}):\n${stderr}`));
    });
  });
  return {
    url,
    stop: () =>
      new Promise((done) => {
        child.once("exit", done);
        child.kill("SIGTERM");
      }),
  };
}

/**
 * Serves the project through awr-mcp with a version 2 registry and checks what each grant sees.
 * @param {string} root
 * @param {string} projectId
 */
async function checkServed(root, projectId) {
  const tokens = {
    exact: "x".repeat(40),
    project: "p".repeat(40),
    stale: "s".repeat(40),
    api: "a".repeat(40),
  };
  /** @param {string} id @param {number} version */
  const grant = (id, version) =>
    `\n[[clients.workstreams]]\nproject = "fixture"\nworkstream_id = "${id}"\nauthority_version = ${version}\n`;
  const registry = join(root, ".awr", "service.toml");
  writeFileSync(
    registry,
    [
      "version = 2",
      `[[projects]]\nkey = "fixture"\nroot = "${root}"\nproject_id = "${projectId}"`,
      `[[clients]]\nid = "exact"\ntoken_env = "T_EXACT"\nread = ["fixture"]${grant(API, 1)}${grant(CLIENT, 1)}`,
      `[[clients]]\nid = "api"\ntoken_env = "T_API"\nread = ["fixture"]${grant(API, 1)}`,
      `[[clients]]\nid = "project"\ntoken_env = "T_PROJECT"\nwrite = ["fixture"]`,
      `[[clients]]\nid = "stale"\ntoken_env = "T_STALE"\nread = ["fixture"]${grant(API, 2)}`,
    ].join("\n\n"),
    { mode: 0o600 },
  );
  const service = await serve(registry, {
    T_EXACT: tokens.exact,
    T_API: tokens.api,
    T_PROJECT: tokens.project,
    T_STALE: tokens.stale,
  });
  /** @type {any[]} the SDK's clients (imported at run time, untyped) */
  const open = [];
  try {
    /** @param {string} token */
    const connect = async (token) => {
      const client = new Client({ name: "check-real-workstreams", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(service.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      open.push(client);
      return client;
    };
    /**
     * One awr_workstream call; its error flag and structured result.
     * @param {any} client
     * @param {string} action
     * @param {Record<string, unknown>} [extra]
     * @returns {Promise<{ isError: boolean; value: any }>}
     */
    const call = async (client, action, extra = {}) => {
      const result = await client.callTool({
        name: "awr_workstream",
        arguments: { project: "fixture", protocol_version: 1, action, ...extra },
      });
      return { isError: result.isError === true, value: result.structuredContent };
    };
    /**
     * The error code of an awr_workstream call that must fail.
     * @param {any} client
     * @param {string} action
     * @param {Record<string, unknown>} [extra]
     */
    const errorCode = async (client, action, extra) => {
      const { isError, value } = await call(client, action, extra);
      check(isError, `${action} ${JSON.stringify(extra ?? {})} unexpectedly succeeded`);
      return value.code;
    };
    const [exact, api, project, stale] = await Promise.all(
      [tokens.exact, tokens.api, tokens.project, tokens.stale].map(connect),
    );
    const listed = await call(exact, "list");
    const ids = (listed.value.workstreams ?? []).map((/** @type {{ id: string }} */ w) => w.id);
    check(
      !listed.isError && JSON.stringify(ids) === JSON.stringify([API, CLIENT]),
      `list (exact grants): ${JSON.stringify(listed.value)}`,
    );
    check(
      (await errorCode(project, "list")) === "WorkstreamAccessDenied",
      "list with a project grant only",
    );
    check(
      (await errorCode(stale, "list")) === "WorkstreamStaleAuthority",
      "list with an outdated grant",
    );
    const context = await call(api, "context", { work: "API-1", args: { budget: 8000 } });
    check(
      !context.isError && context.value.ok === true,
      `context of API-1: ${JSON.stringify(context.value)}`,
    );
    check(context.value.workstream?.id === API, "context is not in the api workstream's envelope");
    check(context.value.result?.completeness?.complete === true, "context of API-1 is incomplete");
    check(
      !/PRIVATE_CLIENT|CLIENT-1/.test(JSON.stringify(context.value)),
      "context of API-1 shows the client stream",
    );
    check(
      (await errorCode(api, "context", { work: "CLIENT-1" })) === "WorkstreamAccessDenied",
      "context of CLIENT-1 for the api reader",
    );
    check(
      (await errorCode(exact, "catalog", { args: { kind: "work" } })) === "WorkstreamScopeRequired",
      "catalog without a selector",
    );
    check(
      (await errorCode(exact, "context", { work: "API-1", workstream: CLIENT })) ===
        "WorkstreamBindingMismatch",
      "context with disagreeing selectors",
    );
    const legacy = await project.callTool({
      name: "awr_work_get",
      arguments: { project: "fixture", work: "API-1" },
    });
    check(
      legacy.isError === true && legacy.structuredContent.code === "Unsupported",
      "awr_work_get on the workstream project",
    );
    console.log(
      `ok    served: list ${ids.length} stream(s) to the exact grants, none to a project grant or an outdated one; context API-1 complete; WorkstreamAccessDenied, WorkstreamScopeRequired, WorkstreamBindingMismatch, WorkstreamStaleAuthority`,
    );
  } finally {
    await Promise.allSettled(open.map((client) => client.close()));
    await service.stop();
  }
}

const roots = [];
let failed = 0;
try {
  const context = assemble({
    ".awr/project.toml": { file: "context/context.toml" },
    "work.yaml": { file: "context/context.yaml" },
    "rules.md": { text: RULES },
  });
  roots.push(context);
  try {
    const id = initAndList("context (context.toml + context.yaml)", context, [
      ".awr/project.toml",
      "work.yaml",
    ]);
    await checkServed(context, id);
  } catch (error) {
    console.error(`FAIL  context: ${/** @type {Error} */ (error).message}`);
    failed++;
  }
  const ledger = assemble({
    ".awr/project.toml": {
      text: '[project]\nname = "Workstream ledger fixture"\n\n[[sources]]\ndomain = "ledger"\nrole = "primary"\npath = "ledger.yaml"\nadapter = "yaml-workstream-ledger-v1"\n',
    },
    "ledger.yaml": { file: "ledger/ledger.yaml" },
  });
  roots.push(ledger);
  try {
    initAndList("ledger (ledger.yaml)", ledger, ["ledger.yaml"]);
  } catch (error) {
    console.error(`FAIL  ledger: ${/** @type {Error} */ (error).message}`);
    failed++;
  }
} finally {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
}
console.log(`${2 - failed} of 2 workstream fixture(s) passed`);
process.exit(failed === 0 ? 0 : 1);
