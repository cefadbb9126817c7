import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MAX_BYTES, parseManifest } from "@awr/awr-ledger/sources";
import { afterAll, describe, expect, it } from "vitest";
import {
  generateBenchmarkProject,
  generateFixtureProject,
  SECRET_DETECTION_CONDITIONS,
} from "../src/index.js";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "awr-ledger-fixtures-"));
  temps.push(dir);
  return dir;
}

describe("generateFixtureProject", () => {
  it("writes the same project for the same seed, and a different one for another seed", () => {
    const ledger = (seed: number) => {
      const project = generateFixtureProject(join(temp(), "p"), { items: 12, seed });
      expect(project.items).toHaveLength(12);
      return readFileSync(join(project.root, "work-ledger.yaml"), "utf8");
    };
    expect(ledger(3)).toBe(ledger(3));
    expect(ledger(3)).not.toBe(ledger(4));
  });

  it.each([10, 12_000])(
    "writes a manifest whose YAML cap admits its ledger of %i items",
    (items) => {
      const project = generateFixtureProject(join(temp(), "p"), { items });
      const manifest = parseManifest(readFileSync(project.manifest_path, "utf8"));
      const work = manifest.sources.find((source) => source.path === "work-ledger.yaml");
      const size = readFileSync(join(project.root, "work-ledger.yaml")).byteLength;
      const cap = work?.options["max_bytes"] ?? DEFAULT_MAX_BYTES["yaml-ledger-v1"];
      expect(cap).toBeGreaterThan(size);
    },
  );
});

describe("generateBenchmarkProject", () => {
  it("states the expected facts of each of its 39 active tasks", () => {
    const project = generateBenchmarkProject(join(temp(), "b"));
    expect(project.tasks).toHaveLength(150);
    expect(project.expected).toHaveLength(39);
  });
});

describe("SECRET_DETECTION_CONDITIONS", () => {
  it("names each condition once", () => {
    const names = SECRET_DETECTION_CONDITIONS.map((condition) => condition.id);
    expect(new Set(names).size).toBe(names.length);
  });
});
