#!/usr/bin/env node
// CI: real AWR projects load unchanged. For every project under DIR (a directory with
// .awr/project.toml, or a top-level project.toml used with --manifest), a temporary copy is
// initialised with the built `awr` and its own manifest, then read with `--json status`,
// `ready`, `work show` for every work item and `search` for a word from the middle of a title
// (a CJK word when the project has one). Fails when any command fails, a work item or the
// searched record is missing, or any byte of the project's own files changed.
//
//   node scripts/check-real-projects.mjs DIR
//
// Needs `pnpm build` first. A missing DIR is skipped with a message (exit 0).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { awr } from "./awr-json.mjs";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const CLI = join(ROOT, "apps/cli/dist/main.js");
const LEDGER = join(ROOT, "packages/awr-ledger/dist/index.js");
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{4,}/u;
const WORD = /[\p{L}\p{N}]{6,}/u;

const dirArgument = process.argv[2];
if (dirArgument === undefined) {
  console.error("usage: node scripts/check-real-projects.mjs DIR");
  process.exit(2);
}
const dir = dirArgument;
if (!existsSync(dir)) {
  console.log(`skipped: ${dir} does not exist (no real AWR projects to check on this machine)`);
  process.exit(0);
}
for (const built of [CLI, LEDGER]) {
  if (!existsSync(built)) {
    console.error(`${relative(ROOT, built)} is missing: run \`pnpm build\` first`);
    process.exit(2);
  }
}
const { openLedger } = await import(pathToFileURL(LEDGER).href);
const { ledgerStore } = await import(
  pathToFileURL(join(dirname(LEDGER), "testing", "index.js")).href
);

/**
 * sha256 of every file under root, by relative path.
 * @param {string} root
 */
function fileHashes(root) {
  /** @type {Map<string, string>} */
  const out = new Map();
  /** @param {string} sub */
  const walk = (sub) => {
    for (const entry of readdirSync(join(root, sub), { withFileTypes: true })) {
      const rel = sub === "" ? entry.name : `${sub}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile())
        out.set(
          rel,
          createHash("sha256")
            .update(readFileSync(join(root, rel)))
            .digest("hex"),
        );
    }
  };
  walk("");
  return out;
}

/**
 * A word taken from the middle of a title: two CJK characters, or a Latin word's middle part.
 * @param {readonly string[]} titles
 */
function middleWord(titles) {
  for (const title of titles) {
    const run = CJK_RUN.exec(title)?.[0];
    if (run !== undefined) {
      const chars = [...run];
      const at = Math.floor(chars.length / 2) - 1;
      return { word: chars.slice(at, at + 2).join(""), title };
    }
  }
  for (const title of titles) {
    const word = WORD.exec(title)?.[0];
    if (word !== undefined) return { word, title };
  }
  return undefined;
}

/**
 * Checks one real project (on a temporary copy); false when it failed, as printed.
 * @param {string} source the project's directory
 */
async function checkProject(source) {
  const name = relative(dir, source) || source;
  const root = mkdtempSync(join(tmpdir(), "awr-real-"));
  try {
    cpSync(source, root, { recursive: true });
    execFileSync("chmod", ["-R", "u+w", root]);
    const before = fileHashes(root);
    const ownManifest = existsSync(join(root, ".awr/project.toml"));
    const init = awr(root, [
      "init",
      "--accept",
      ...(ownManifest ? [] : ["--manifest", join(root, "project.toml")]),
    ]);
    const errors = init.issues.filter(
      (/** @type {{ severity: string }} */ i) => i.severity === "error",
    );
    if (errors.length > 0) throw new Error(`init reported errors: ${JSON.stringify(errors)}`);
    const status = awr(root, ["status", "--view", "full"]);
    awr(root, ["ready"]);
    const ledger = await openLedger({ root });
    /** @type {string[]} */
    let work;
    /** @type {string[]} */
    let titles;
    try {
      /** @type {{ kind: string; key: string; title: string }[]} */
      const rows = await ledgerStore(ledger)
        .db.selectFrom("entities")
        .select(["kind", "key", "title"])
        .orderBy("ordinal")
        .execute();
      work = rows.filter((r) => r.kind === "work").map((r) => r.key);
      titles = rows.map((r) => r.title);
    } finally {
      await ledger.close();
    }
    if (work.length !== status.total)
      throw new Error(`status counts ${status.total} work items, the ledger has ${work.length}`);
    for (const key of work) {
      const shown = awr(root, ["work", "show", key]);
      if (shown.work?.work !== key)
        throw new Error(`work show ${key} returned ${JSON.stringify(shown.work?.work)}`);
    }
    const probe = middleWord(titles);
    if (probe !== undefined) {
      const found = awr(root, ["search", probe.word, "--limit", "100"]);
      if (!found.hits.some((/** @type {{ title: string }} */ h) => h.title === probe.title)) {
        throw new Error(`search ${probe.word} did not find "${probe.title}"`);
      }
    }
    const after = fileHashes(root);
    for (const [path, hash] of before) {
      if (after.get(path) !== hash)
        throw new Error(`${path} changed (or vanished) during the check`);
    }
    for (const path of after.keys()) {
      if (!before.has(path) && !path.startsWith(".awr/") && path !== ".gitignore") {
        throw new Error(`${path} was created outside .awr/`);
      }
    }
    console.log(
      `ok    ${name}: ${work.length} work item(s) shown, ${Object.values(status.entity_counts).reduce((a, b) => a + b, 0)} entities${probe === undefined ? "" : `, search "${probe.word}" found "${probe.title}"`}`,
    );
    return true;
  } catch (error) {
    console.error(`FAIL  ${name}: ${/** @type {Error} */ (error).message}`);
    return false;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const projects = readdirSync(dir)
  .map((entry) => join(dir, entry))
  .filter((path) => statSync(path).isDirectory())
  .filter(
    (path) => existsSync(join(path, ".awr/project.toml")) || existsSync(join(path, "project.toml")),
  );
if (projects.length === 0) {
  console.error(
    `no AWR projects under ${dir} (a directory with .awr/project.toml or project.toml)`,
  );
  process.exit(1);
}
let failed = 0;
for (const project of projects) if (!(await checkProject(project))) failed++;
console.log(`${projects.length - failed} of ${projects.length} real project(s) passed`);
process.exit(failed === 0 ? 0 : 1);
