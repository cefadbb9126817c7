import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { awr, manifestText, removeTemps, tempDir } from "./support/cli-harness.js";

// A session is lost mid-work (its caller exits) and a second agent resumes it, every step a
// separate `awr --json` run, as the original's compact-recovery harness walks it: the fields the
// successor needs to continue (the work, the rules, the saved checkpoint or an explicit gap, the
// source changes since the baseline), faults that must change nothing, and a clean doctor.

const MANIFEST = manifestText("Recovery walk", "recovery-walk", [
  ["goal", "GOALS.md", "markdown-heading-v1"],
  ["ledger", "ledger.yaml", "yaml-ledger-v1"],
  ["rules", "RULES.md", "markdown-rules-v1"],
]);
const LEDGER = `work_items:
  - id: BASE
    title: Lay the groundwork
    status: completed
    acceptance:
      - The groundwork is laid.
    next_action: Nothing left.
  - id: WALL
    title: Build the wall
    status: in_progress
    depends_on: [BASE]
    acceptance:
      - The wall stands two metres high.
    next_action: Lay the first course of bricks.
  - id: SHED
    title: Paint the old shed
    status: completed
    acceptance:
      - The shed is green.
    next_action: Nothing left.
`;
const RULES = `# Safety {#safety severity=hard scope=project value=*}

Wear gloves on site.

# Starter {#starter severity=hard scope=agent value=mason-a}

Photograph the footing before the first course.

# Mason {#mason severity=hard scope=agent value=mason-b}

Check the level after every course.
`;
const GOALS = `# A garden wall {#wall status=active}

A wall around the garden, built to last.
`;
const NEW_NEXT = "Lay the second course with the new mortar.";
const SAVED_NEXT = "Order more bricks before Friday.";
const LOOPS = ["The mortar delivery is late.", "The neighbour has not agreed on the height."];
const UNRELATED = "The shed paint was chosen last spring.";
const UNRELATED_PAYLOAD = "Old paint receipts live in the shed drawer.";

afterAll(removeTemps);

// biome-ignore lint/suspicious/noExplicitAny: the answers are JSON, read field by field.
type Json = Record<string, any>;

async function walk(withCheckpoint: boolean) {
  const root = await tempDir("awr-recovery-");
  await writeFile(join(root, "manifest.toml"), MANIFEST);
  await writeFile(join(root, "ledger.yaml"), LEDGER);
  await writeFile(join(root, "RULES.md"), RULES);
  await writeFile(join(root, "GOALS.md"), GOALS);
  const run = async (args: (string | number)[], code = 0) => {
    const result = await awr(["--project", root, "--json", ...args.map(String)]);
    expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ code });
    return code === 0 ? (result.json() as Json) : (result.error() as Json);
  };
  const revision = async () => (await run(["status"]))["project_revision"] as number;
  // The runtime records a refused resume must leave as they were: the sessions, and the
  // predecessor's claims and checkpoint (the successor's too, once there is one).
  const records = async () =>
    JSON.stringify([
      (await run(["session", "list"]))["sessions"],
      ...(await Promise.all(
        ((await run(["session", "list"]))["sessions"] as Json[]).map(async (s) => {
          const got = await run(["session", "show", s["id"]]);
          return [got["claims"], got["checkpoint"], got["resumed_successor"]];
        }),
      )),
    ]);
  const changeSources = async () => {
    const ledger = await readFile(join(root, "ledger.yaml"), "utf8");
    await writeFile(
      join(root, "ledger.yaml"),
      ledger.replace("Lay the first course of bricks.", NEW_NEXT),
    );
    const rules = await readFile(join(root, "RULES.md"), "utf8");
    await writeFile(join(root, "RULES.md"), rules.replace("Wear gloves", "Wear gloves and boots"));
  };

  const init = await run(["init", "--manifest", "manifest.toml", "--accept"]);
  expect(init["index"]).toMatchObject({ ok: true });
  const agentA = ["--agent", "mason-a", "--provider", "p", "--model", "m"];
  const agentB = ["--agent", "mason-b", "--provider", "p", "--model", "m"];
  const started = await run([
    "session",
    "start",
    "--work",
    "WALL",
    ...agentA,
    "--claim",
    "--ttl-ms",
    3_600_000,
    "--expected-revision",
    await revision(),
  ]);
  const sid = started["session"]["id"] as string;
  expect(started["session"]).toMatchObject({
    project_id: init["project_id"],
    start_project_revision: started["project_revision"],
  });
  const work = (await run(["object", "show", "work", "WALL", "--full"]))["object"];
  expect(work).toMatchObject({
    id: started["session"]["work_item_id"],
    external_key: "WALL",
    acceptance: ["The wall stands two metres high."],
  });
  await run([
    "event",
    "append",
    "--work",
    "WALL",
    "--session",
    sid,
    "--type",
    "work.progress",
    "--summary",
    "Mixed the mortar.",
    "--expected-revision",
    started["project_revision"],
  ]);
  let cp: Json | undefined;
  if (withCheckpoint) {
    await changeSources();
    const used = await run(["context", "compile", "--session", sid]);
    cp = await run([
      "session",
      "checkpoint",
      "--session",
      sid,
      "--context-hash",
      used["work_context"]["context_hash"],
      "--digest",
      "The mortar is mixed.",
      "--next-action",
      SAVED_NEXT,
      "--open-loop",
      LOOPS[0] as string,
      "--open-loop",
      LOOPS[1] as string,
      "--expected-revision",
      used["project_revision"],
    ]);
    expect(cp["checkpoint_save"]).toMatchObject({ delta_recorded: true });
  }
  await writeFile(join(root, "old.json"), JSON.stringify({ body: UNRELATED_PAYLOAD }));
  const unrelated = await run([
    "event",
    "append",
    "--work",
    "SHED",
    "--type",
    "work.progress",
    "--importance",
    "critical",
    "--summary",
    UNRELATED,
    "--payload",
    "old.json",
    "--expected-revision",
    await revision(),
  ]);
  const beforeChange = unrelated["project_revision"] as number;
  if (!withCheckpoint) await changeSources();
  const resume = (expected: number, code = 0) =>
    run(
      ["session", "resume", "--from-session", sid, ...agentB, "--expected-revision", expected],
      code,
    );

  // Faults change nothing: a revision from before the sources changed, and a missing source.
  const before = await records();
  // Without a checkpoint the sources changed after beforeChange, so the resume's own reindex
  // makes it stale; with one, they were indexed before it, and an older revision is stale.
  const stale = withCheckpoint ? beforeChange - 1 : beforeChange;
  expect((await resume(stale, 1))["code"]).toBe("RevisionConflict");
  await rename(join(root, "RULES.md"), join(root, "RULES.md.off"));
  expect((await resume(await revision(), 1))["code"]).toBe("SourceStale");
  await rename(join(root, "RULES.md.off"), join(root, "RULES.md"));
  expect(await records()).toBe(before);

  const resumed = await resume(await revision());
  expect(resumed["context_ready"]).toBe(true);
  const successor = resumed["resumed"]["session"];
  expect(successor).toMatchObject({
    agent_id: "mason-b",
    last_checkpoint_id: null,
    work_item_id: started["session"]["work_item_id"],
  });
  expect(resumed["resumed"]["from_session"]).toMatchObject({ id: sid, status: "interrupted" });
  expect(resumed["resumed"]["claim"]["id"]).not.toBe(started["claim"]["id"]);
  expect(resumed["resumed"]["closed_claim_ids"]).toEqual([started["claim"]["id"]]);
  const nid = successor["id"] as string;
  const shown = await run(["session", "show", nid]);
  expect(shown["session"]).toEqual(successor);

  const bootstrap = await run(["context", "bootstrap", "--session", nid]);
  const baseline = cp
    ? ["--checkpoint", cp["checkpoint"]["id"]]
    : ["--after-revision", resumed["context"]["delta_after_revision"]];
  const context = await run([
    "context",
    "compile",
    "--work",
    "WALL",
    "--session",
    nid,
    "--agent",
    "mason-b",
    "--intent",
    "resume",
    ...baseline,
  ]);
  expect(context).toEqual(resumed["context"]);
  const text = context["work_context"]["rendered_context"] as string;
  expect(text).toContain(NEW_NEXT);
  expect(text).toContain("source.projected");
  expect(bootstrap["context"]["work"]).toMatchObject({
    external_key: "WALL",
    next_action: NEW_NEXT,
  });
  // The receiver's hard rules: the project rule as it reads now and the receiver's own, each
  // stored as the rules adapter stores it (heading title, a blank line, the body), and in the
  // work context; the predecessor's agent rule is in neither.
  const ruleTexts = (bootstrap["context"]["critical_rules"] as Json[]).map((r) => r["text"]);
  expect(new Set(ruleTexts)).toEqual(
    new Set([
      "Safety\n\nWear gloves and boots on site.",
      "Mason\n\nCheck the level after every course.",
    ]),
  );
  for (const rule of ruleTexts) expect(text).toContain(rule);
  expect(text).not.toContain("Photograph the footing");
  const delta = await run(["context", "delta", "--session", nid]);
  const changedKeys = (changes: Json[]) =>
    new Set(
      changes.flatMap((s) =>
        (s["changes"] ?? s["changed_entities"]).map((c: Json) => c["external_key"]),
      ),
    );
  if (cp) {
    const saved = await run(["object", "show", "checkpoint", cp["checkpoint"]["id"], "--full"]);
    expect(saved["object"]).toEqual(cp["checkpoint"]);
    expect(bootstrap["context"]["checkpoint"]).toEqual(cp["checkpoint"]);
    expect(resumed).toMatchObject({
      checkpoint_id: cp["checkpoint"]["id"],
      recovery_basis: "checkpoint",
    });
    expect(saved["session_delta"]["session_events"].length).toBeGreaterThan(0);
    const observed = changedKeys(saved["session_delta"]["source_observations"]);
    for (const key of ["WALL", "safety"]) expect(observed).toContain(key);
    for (const name of saved["object"]["changed_entities"]) {
      expect(bootstrap["rendered_context"]).toContain(name);
    }
    for (const loop of LOOPS) expect(text).toContain(loop);
    expect(text).toContain(SAVED_NEXT);
  } else {
    expect(resumed).toMatchObject({
      checkpoint_id: null,
      checkpoint_save: null,
      recovery_basis: "source_and_session_start",
    });
    expect(resumed["recovery_gaps"].length).toBeGreaterThan(0);
    expect(shown["inherited_checkpoint"]).toBeNull();
    expect(bootstrap["context"]["checkpoint"]).toBeNull();
    expect(delta["delta"]["after_revision"]).toBe(started["session"]["start_project_revision"]);
    const changed = changedKeys(delta["delta"]["events"]["source_changes"]);
    for (const key of ["WALL", "safety"]) expect(changed).toContain(key);
    expect(text).not.toContain(SAVED_NEXT);
  }
  // The other work item's history stays out of the recovery, and stays readable on request.
  const packed = JSON.stringify([resumed, bootstrap, context, delta]);
  for (const foreign of ["SHED", UNRELATED, UNRELATED_PAYLOAD])
    expect(packed).not.toContain(foreign);
  const history = JSON.stringify(await run(["event", "show", unrelated["event"]["id"], "--full"]));
  expect(history).toContain(UNRELATED);
  expect(history).toContain(UNRELATED_PAYLOAD);

  const beforeDuplicate = await records();
  expect((await resume(context["project_revision"], 1))["code"]).toBe("InvalidTransition");
  expect(await records()).toBe(beforeDuplicate);
  await run([
    "session",
    "end",
    "--session",
    nid,
    "--outcome",
    "incomplete",
    "--expected-revision",
    context["project_revision"],
  ]);
  const doctor = await run(["doctor"]);
  expect(doctor).toMatchObject({ ok: true, findings: [] });
}

describe("recovering a lost session in a successor, one awr run per step", () => {
  it("from a checkpoint saved after the sources changed", () => walk(true), 60_000);
  it(
    "without a checkpoint: from the sources and the predecessor's start",
    () => walk(false),
    60_000,
  );
});
