import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { awr, demoProject, removeTemps } from "./support/cli-harness.js";

/**
 * `awr work show` prints every value `--json` has: a text field set in the source (raw status,
 * summary, next action, ...) never shows as `-` in the human view.
 */

afterAll(removeTemps);

describe("awr work show", () => {
  it("prints the raw status, the summary and every other text field --json has", async () => {
    const root = await demoProject({ init: false });
    const ledger = join(root, "work-ledger.yaml");
    // A status outside the canonical set keeps its raw text (raw_status).
    await writeFile(
      ledger,
      (await readFile(ledger, "utf8")).replace("status: ready", "status: Doing"),
    );
    expect((await awr(["--project", root, "init", "--accept"])).code).toBe(0);
    const json = await awr(["--json", "--project", root, "work", "show", "W-2"]);
    const work = json.json<{ work: Record<string, unknown> }>().work;
    expect(work["raw_status"]).toBe("Doing");
    expect(typeof work["summary"]).toBe("string");

    const human = await awr(["--project", root, "work", "show", "W-2"], {
      env: { COLUMNS: "400" },
    });
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.split("\n").map((line) => line.trim().replace(/\s+/g, " "));
    for (const [field, value] of Object.entries(work)) {
      // The heading line carries the key, title and status.
      if (typeof value !== "string" || ["id", "work", "title", "status"].includes(field)) continue;
      const label = field.replaceAll("_", " ");
      // A reference may be followed by what it names (goal#checkout — its title).
      const shown = lines.some((line) => line.startsWith(`${label} ${value}`));
      expect(shown, `${label} ${value} in:\n${human.stdout}`).toBe(true);
    }
  });
});
