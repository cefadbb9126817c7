import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SECRET_DETECTION_CONDITIONS, SYNTHETIC_VALUE } from "@awr/ledger-fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "../helpers/backends.js";
import { ledgerFailure } from "../helpers/failures.js";
import { type OpenProject, openFixtureProject } from "../helpers/projects.js";
import { storedText } from "../helpers/stored-text.js";

/**
 * The secret policy at index time (docs/design/secret-boundaries.md, section 1), both backends:
 * a source holding a credential keeps its previous projection (other sources are indexed), is
 * reported held back by the reindex, which answers RuleViolation naming file:line with its
 * result attached (never a success), is reported not fresh (SourceStale to a plain read,
 * RuleViolation naming file:line to a refreshing one), is never rewritten, and no error or
 * stored row holds the value. Clean text of the condition table is indexed as written.
 */

const SAMPLE_KEY = ["sk", "proj", "abcdefghijklmnopqrstuvwxyz0123456789ABCD"].join("-");
const SAMPLE = `Use OPENAI_API_KEY=${SAMPLE_KEY} and password: hunter2hunter2`;
const SECRET = SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "secret");
const CLEAN = SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "clean");

/** Every 12-character piece of `value`: none may appear in an output. */
function pieces(value: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i + size <= value.length; i++) out.push(value.slice(i, i + size));
  return out;
}

const refusal = (run: Promise<unknown>) =>
  ledgerFailure(run, "answered although a source holds a credential");

const ruleHeading = (key: string, body: string) =>
  `\n## Held rule ${key} {#held-${key} severity=hard scope=global}\n\n${body}\n`;

describe.each(BACKENDS)("secret policy at index time, %s", (backend) => {
  let project: OpenProject;
  const file = (name: string) => join(project.root, name);
  const revision = () => project.ledger.revision();
  const reindex = async (requestId?: string) =>
    project.ledger.call("awr_source_reindex", {
      expected_revision: await revision(),
      ...(requestId === undefined ? {} : { request_id: requestId }),
    });
  type Reindexed = Awaited<ReturnType<typeof reindex>>;
  /** A reindex that holds a source back: RuleViolation, with the reindex's result attached. */
  const heldReindex = async (requestId?: string) => {
    const error = await refusal(reindex(requestId));
    expect(error.code).toBe("RuleViolation");
    expect(error.result).toMatchObject({ ok: false, error: { code: "RuleViolation" } });
    return { error, result: error.result as unknown as Reindexed };
  };
  const rules = async () =>
    (
      await project.db.db
        .selectFrom("entities")
        .select(["key", "body"])
        .where("source_path", "=", "RULES.md")
        .orderBy("key")
        .execute()
    ).map((r) => `${r.key}:${r.body}`);

  beforeEach(async () => {
    project = await openFixtureProject("basic", backend);
  });
  afterEach(() => project?.close());

  it("keeps RULES.md's previous projection for the issue's sample, indexes the rest, reports it not fresh", async () => {
    const before = await rules();
    appendFileSync(file("RULES.md"), ruleHeading("sample", SAMPLE));
    appendFileSync(file("GOALS.md"), "\n## Faster refunds {#refunds}\n\nRefunds within a day.\n");
    const bytes = readFileSync(file("RULES.md"));
    const line = bytes.toString().split("\n").indexOf(SAMPLE) + 1;

    const stale = await refusal(project.ledger.call("awr_search", { text: "sk-proj" }));
    expect(stale.code).toBe("SourceStale");
    expect(stale.details).toMatchObject({ changed_paths: ["GOALS.md", "RULES.md"] });

    const recorded = (await project.ledger.call("awr_source_list", {})).sources.find(
      (s) => s.path === "RULES.md",
    );
    const { error, result } = await heldReindex();
    expect(error.message).toContain(`Cannot index RULES.md:${line}: it holds a credential`);
    expect(error.message).toContain("remove it from the file, keep only a reference");
    expect(error.message).toContain(
      `The other changes were indexed at revision ${result.project_revision} (GOALS.md).`,
    );
    expect(error.details).toMatchObject({
      changed_paths: ["RULES.md"],
      project_revision: result.project_revision,
    });
    expect(result.changed_paths).toEqual(["GOALS.md"]);
    expect(result.reindexed).toBe(true);
    const rulesState = result.sources.find((s) => s.path === "RULES.md");
    // Held back, not "unchanged": the file changed; the fingerprint is the kept projection's.
    expect(rulesState).toMatchObject({
      state: "held_back",
      fingerprint: recorded?.fingerprint,
      entity_count: recorded?.entity_count,
    });
    const held = result.issues.filter((i) => i.code === "RuleViolation");
    expect(new Set(held.map((i) => `${i.path}:${i.line}`))).toEqual(new Set([`RULES.md:${line}`]));
    expect(await rules()).toEqual(before);
    const goal = await project.db.db
      .selectFrom("entities")
      .select("key")
      .where("key", "=", "goal#refunds")
      .executeTakeFirst();
    expect(goal).toBeDefined();

    const again = await refusal(project.ledger.call("awr_search", { text: "sk-proj" }));
    expect(again.details).toMatchObject({ changed_paths: ["RULES.md"] });
    const refreshed = await refusal(
      project.ledger.call("awr_search", { text: "sk-proj" }, undefined, { refresh: true }),
    );
    expect(refreshed.code).toBe("RuleViolation");
    expect(refreshed.message).toContain(`Cannot index RULES.md:${line}: it holds a credential`);
    expect(refreshed.details).toMatchObject({ policy_version: 3, changed_paths: ["RULES.md"] });

    // Held back alone: nothing else to index, still refused (no revision spent), and a retry
    // of the same request_id is refused the same way.
    const revisionBefore = await revision();
    const alone = await heldReindex("held-1");
    expect(alone.error.message).toContain("Nothing else changed.");
    expect(alone.result).toMatchObject({ reindexed: false, changed_paths: [] });
    expect(alone.result.sources.find((s) => s.path === "RULES.md")?.state).toBe("held_back");
    expect(await revision()).toBe(revisionBefore);
    const replayed = await heldReindex("held-1");
    expect(replayed.error.message).toBe(alone.error.message);

    const outputs = JSON.stringify(
      [stale, error, error.message, result, again, refreshed, alone.error, alone.result].map(
        (x) => x,
      ),
    );
    const stored = await storedText(project.db);
    for (const piece of [...pieces(SAMPLE_KEY), "hunter2hunter2"]) {
      expect(outputs).not.toContain(piece);
      expect(stored).not.toContain(piece);
    }
    expect(readFileSync(file("RULES.md"))).toEqual(bytes);

    writeFileSync(file("RULES.md"), bytes.toString().replace(SAMPLE, "Use a key from the vault."));
    const fixed = await reindex();
    expect(fixed.changed_paths).toEqual(["RULES.md"]);
    expect(await rules()).toContain("rule#held-sample:Use a key from the vault.");
  });

  it("holds back every positive case as a rule body, a heading body and a YAML summary", async () => {
    const ledger = readFileSync(file("work-ledger.yaml"), "utf8");
    const goals = readFileSync(file("GOALS.md"), "utf8");
    const rulesText = readFileSync(file("RULES.md"), "utf8");
    const before = await project.db.db.selectFrom("entities").selectAll().orderBy("key").execute();
    for (const condition of SECRET) {
      for (const [index, { text, value }] of condition.cases.entries()) {
        const block = text
          .split("\n")
          .map((line) => `      ${line}`)
          .join("\n");
        const variants: [string, string][] = [
          ["RULES.md", rulesText + ruleHeading(`${condition.id}-${index}`, text)],
          ["GOALS.md", `${goals}\n## Held goal {#held}\n\n${text}\n`],
          [
            "work-ledger.yaml",
            ledger.replace(
              "    summary: Redirect to the provider's hosted page.",
              `    summary: |\n${block}`,
            ),
          ],
        ];
        for (const [name, content] of variants) {
          writeFileSync(file(name), content);
          const { error, result } = await heldReindex();
          const where = `${condition.id}[${index}] in ${name}`;
          expect(error.message, where).toContain(`Cannot index ${name}:`);
          expect(result.reindexed, where).toBe(false);
          expect(
            result.issues.some((i) => i.code === "RuleViolation" && i.path === name),
            where,
          ).toBe(true);
          const secret = value ?? SYNTHETIC_VALUE;
          if (secret.length >= 8) {
            expect(JSON.stringify([result, error.message]), where).not.toContain(secret);
          }
          expect(readFileSync(file(name), "utf8")).toBe(content);
          writeFileSync(
            file(name),
            name === "RULES.md" ? rulesText : name === "GOALS.md" ? goals : ledger,
          );
        }
      }
    }
    expect(await project.db.db.selectFrom("entities").selectAll().orderBy("key").execute()).toEqual(
      before,
    );
    expect(await storedText(project.db)).not.toContain(SYNTHETIC_VALUE);
  });

  it("holds back a credential a YAML escape hides from the text", async () => {
    const ledger = readFileSync(file("work-ledger.yaml"), "utf8");
    const escaped = `    summary: "pa\\u0073sword: ${SYNTHETIC_VALUE}"`;
    writeFileSync(
      file("work-ledger.yaml"),
      ledger.replace("    summary: Redirect to the provider's hosted page.", escaped),
    );
    const { error, result } = await heldReindex();
    const held = result.issues.filter((i) => i.code === "RuleViolation");
    expect(held).toHaveLength(1);
    expect(held[0]?.path).toBe("work-ledger.yaml");
    expect(held[0]?.line).toBeGreaterThan(1);
    expect(JSON.stringify([result, error.message])).not.toContain(SYNTHETIC_VALUE);
  });

  it("indexes every negative case as written", async () => {
    const rulesText = readFileSync(file("RULES.md"), "utf8");
    const cases = CLEAN.flatMap((c) => c.cases.map((k, i) => ({ key: `${c.id}-${i}`, ...k })));
    // Each case alone as the last rule: a label with an empty value ("password:") reads the
    // next non-blank line as its value, so cases are not stacked on each other.
    for (const { key, text } of cases.filter(
      (c) => c.text.trim() !== "" && !c.text.includes("#"),
    )) {
      writeFileSync(file("RULES.md"), rulesText + ruleHeading(key, text));
      const result = await reindex();
      expect(
        result.issues.filter((i) => i.severity === "error"),
        key,
      ).toEqual([]);
      expect(result.changed_paths).toEqual(["RULES.md"]);
      expect(await rules()).toContain(`rule#held-${key}:${text.trim()}`);
    }
  });

  it("records a source first seen with a credential as not fresh, with no entities", async () => {
    const manifest = readFileSync(file(".awr/project.toml"), "utf8");
    writeFileSync(file("NOTES.md"), `# Notes\n\n${SAMPLE}\n`);
    writeFileSync(
      file(".awr/project.toml"),
      `${manifest}\n[[sources]]\ndomain = "decisions"\nrole = "supporting"\npath = "NOTES.md"\nadapter = "markdown-heading-v1"\n`,
    );
    const { result } = await heldReindex();
    expect(new Set(result.issues.map((i) => `${i.path}:${i.line}:${i.code}`))).toEqual(
      new Set(["NOTES.md:3:RuleViolation"]),
    );
    expect(result.sources.find((s) => s.path === "NOTES.md")).toMatchObject({
      state: "held_back",
      fingerprint: "withheld",
      entity_count: 0,
    });
    const stale = await refusal(project.ledger.call("awr_work_ready", {}));
    expect(stale.code).toBe("SourceStale");
    expect(stale.details).toMatchObject({ changed_paths: ["NOTES.md"] });
    const notes = await project.db.db
      .selectFrom("entities")
      .select("key")
      .where("source_path", "=", "NOTES.md")
      .execute();
    expect(notes).toEqual([]);
    expect(await storedText(project.db)).not.toContain(SAMPLE_KEY.slice(8, 20));
  });

  it("re-checks every source, changed or not, when the last index ran under an older policy", async () => {
    const state = () =>
      project.db.db.selectFrom("project_state").select("secret_policy_version").executeTakeFirst();
    expect(Number((await state())?.secret_policy_version)).toBe(3);
    // RULES.md holds a value that an older policy let through: recorded as indexed as it is.
    appendFileSync(file("RULES.md"), ruleHeading("sample", SAMPLE));
    const bytes = readFileSync(file("RULES.md"));
    const line = bytes.toString().split("\n").indexOf(SAMPLE) + 1;
    const { size, mtimeMs } = statSync(file("RULES.md"));
    await project.db.db
      .updateTable("sources")
      .set({
        fingerprint: `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
        size,
        mtime_ms: mtimeMs,
      })
      .where("path", "=", "RULES.md")
      .execute();

    const current = await reindex();
    expect(current.changed_paths).toEqual([]);
    expect(current.issues.filter((i) => i.code === "RuleViolation")).toEqual([]);

    await project.db.db.updateTable("project_state").set({ secret_policy_version: 2 }).execute();
    const { result: rechecked } = await heldReindex();
    const held = rechecked.issues.filter((i) => i.code === "RuleViolation");
    expect(new Set(held.map((i) => `${i.path}:${i.line}`))).toEqual(new Set([`RULES.md:${line}`]));
    expect(Number((await state())?.secret_policy_version)).toBe(3);
    // What was recorded came from these bytes, so none of it stays: no rules until it is clean.
    expect(await rules()).toEqual([]);
    const stale = await refusal(project.ledger.call("awr_work_ready", {}));
    expect(stale.details).toMatchObject({ changed_paths: ["RULES.md"] });
    expect(JSON.stringify(rechecked)).not.toContain(SAMPLE_KEY.slice(8, 20));
    writeFileSync(file("RULES.md"), bytes.toString().replace(SAMPLE, "Use a key from the vault."));
    expect((await reindex()).changed_paths).toEqual(["RULES.md"]);
    expect(await rules()).toContain("rule#held-sample:Use a key from the vault.");
  });
});
