#!/usr/bin/env node
// `pnpm check:packages` (after the per-package publint/attw checks): packs every published
// workspace package as a user would get it (`pnpm pack`, which applies publishConfig) and checks
// that it ships only what runs: no source maps or declaration maps, nothing of the ledger's
// unpublished `testing` subpath or of test fixtures, and a packed size within the package's
// bound. Prints each tarball's packed and unpacked size. Needs `pnpm build` first.
//
//   node scripts/check-tarballs.mjs            every package under packages/ and apps/
//   node scripts/check-tarballs.mjs DIR...     only these package directories
//
// With AWR_PACKED_TARBALLS set to a directory, every tarball it packed is kept there: CI hands
// them on to the scripts that install the tarballs (scripts/pack-tarballs.sh), which then need
// not pack the same build again.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The most a package's tarball may weigh, in bytes. The ledger's is mostly the o200k_base
 * token ranks (2 MB of JSON, about 1 MB packed), which every context compile loads. The CLI's
 * includes `awr inspector`'s page and the demo project its --demo copies (about 30 KB packed).
 */
export const PACKED_BOUNDS = {
  "@awr/awr-ledger": 1_600_000,
  "@awr/cli": 440_000,
  default: 80_000,
};

/**
 * Entries a tarball must not hold, each with the reason a check names.
 * @type {{ test: (path: string) => boolean; reason: string }[]}
 */
const FORBIDDEN = [
  { test: (path) => path.endsWith(".map"), reason: "a source or declaration map" },
  {
    test: (path) => /^package\/dist\/testing\//.test(path),
    reason: "the unpublished testing subpath",
  },
  {
    test: (path) => /^package\/dist\/fixtures\//.test(path),
    reason: "test fixtures (they live in the private @awr/ledger-fixtures)",
  },
];

/**
 * Files a package's tarball must hold besides its code: what `awr inspector` serves (the board's
 * page) and copies for --demo (the bookshop), both written into dist/ by the CLI's build.
 * @type {Record<string, string[]>}
 */
const REQUIRED = {
  "@awr/cli": [
    "dist/inspector-web/index.html",
    "dist/inspector-web/app.js",
    "dist/inspector-web/style.css",
    "dist/demo-project/work-ledger.yaml",
  ],
};

/**
 * Packs the package in `dir` into a temporary directory and inspects the tarball: its name,
 * packed bytes, unpacked bytes, file count and every problem (forbidden entries, over the bound).
 * With `keepIn`, the tarball is also copied into that directory, under the name pnpm gave it.
 * @param {string} dir
 * @param {Readonly<Record<string, number>>} [bounds]
 * @param {string} [keepIn]
 * @returns {import("./check-tarballs.d.mts").TarballReport}
 */
export function inspectPackage(dir, bounds = PACKED_BOUNDS, keepIn = undefined) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const main = manifest.main === undefined ? undefined : join(dir, manifest.main);
  if (main !== undefined && !existsSync(main)) {
    throw new Error(`${manifest.name}: ${manifest.main} is missing; run \`pnpm build\` first`);
  }
  const out = mkdtempSync(join(tmpdir(), "awr-tarball-"));
  try {
    execFileSync("pnpm", ["pack", "--pack-destination", out], { cwd: dir, stdio: "pipe" });
    const tarball = readdirSync(out).find((f) => f.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`${manifest.name}: pnpm pack wrote no tarball`);
    const file = join(out, tarball);
    if (keepIn !== undefined) copyFileSync(file, join(keepIn, tarball));
    // `tar tvzf` lines: mode, owner, size, date, time, path.
    const entries = execFileSync("tar", ["-tvzf", file], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const fields = line.trim().split(/\s+/);
        return { size: Number(fields[2]), path: fields.slice(5).join(" ") };
      });
    const packed = statSync(file).size;
    const bound = bounds[manifest.name] ?? bounds.default;
    /** @type {string[]} */
    const problems = [];
    for (const { test, reason } of FORBIDDEN) {
      const found = entries.filter((e) => test(e.path));
      if (found.length > 0) {
        problems.push(
          `${found.length} ${reason} file(s), e.g. ${found[0]?.path.replace(/^package\//, "")}`,
        );
      }
    }
    for (const required of REQUIRED[manifest.name] ?? []) {
      if (!entries.some((e) => e.path === `package/${required}`)) {
        problems.push(`${required} is missing (the build writes it)`);
      }
    }
    if (bound !== undefined && packed > bound)
      problems.push(`packed ${packed} bytes, over its bound of ${bound}`);
    return {
      name: manifest.name,
      packed,
      unpacked: entries.reduce((sum, e) => sum + e.size, 0),
      files: entries.length,
      paths: entries.map((e) => e.path),
      problems,
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The published package directories: every packages/* and apps/* that is not private. */
function publishedPackages() {
  return ["packages", "apps"].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((entry) => join(ROOT, group, entry))
      .filter((dir) => {
        const file = join(dir, "package.json");
        return existsSync(file) && JSON.parse(readFileSync(file, "utf8")).private !== true;
      }),
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dirs =
    process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : publishedPackages();
  const keepIn = process.env.AWR_PACKED_TARBALLS || undefined;
  let failed = false;
  for (const dir of dirs) {
    let report;
    try {
      report = inspectPackage(dir, PACKED_BOUNDS, keepIn);
    } catch (error) {
      console.error(`check-tarballs: ${/** @type {Error} */ (error).message}`);
      failed = true;
      continue;
    }
    /** @param {number} n */
    const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(
      `${report.name}: ${kb(report.packed)} packed, ${kb(report.unpacked)} unpacked, ${report.files} files`,
    );
    for (const problem of report.problems) {
      console.error(`  ${report.name}: ${problem}`);
      failed = true;
    }
  }
  if (failed) {
    console.error(
      "check-tarballs: fix the build options or the package's `files` so that it ships only what runs",
    );
    process.exit(1);
  }
}
