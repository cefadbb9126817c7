// The reviewed source changes on the command line, through the built binary on a real project:
// `work edit`, `host preview|save|status|recover`, `work create…` and `batch …`. A preview
// writes nothing; an accepted change writes exactly the reviewed bytes; a refusal leaves the
// bytes and the revision as they were; status and recover read and resume the journal.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO_PROJECT, demoProject, removeTemps } from "./support/cli-harness.js";

const BIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const LEDGER = readFileSync(join(DEMO_PROJECT, "work-ledger.yaml"), "utf8");
const OLD_NEXT = "next_action: Write the migration for the orders and order_lines tables";
const NEW_NEXT = "next_action: Write the orders migration";
const EDIT = [
  "--request-key",
  "edit-1",
  "--actor",
  "builder",
  "--reason",
  "Refine the next step",
  "--next-action",
  "Write the orders migration",
];

type Answer = Record<string, unknown>;

let root: string;
beforeEach(async () => {
  root = await demoProject();
}, 60_000);
afterAll(removeTemps);

function awr(words: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [BIN, "--project", root, ...words], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return {
    code: run.status,
    signal: run.signal,
    stdout: run.stdout,
    stderr: run.stderr,
    json: () => JSON.parse(run.stdout) as Answer,
    error: () => JSON.parse(run.stderr.trim().split("\n").at(-1) ?? "{}") as Answer,
  };
}

const ledger = () => readFileSync(join(root, "work-ledger.yaml"), "utf8");
const revision = () => awr(["--json", "status"]).json()["project_revision"] as number;

/** The bytes and the revision are what they were. */
function unchanged(bytes: string, at: number): void {
  expect(ledger()).toBe(bytes);
  expect(revision()).toBe(at);
}

/** A refusal (exit 1, error `code`) that left the bytes and the revision as they were. */
function refusedUnchanged(
  run: ReturnType<typeof awr>,
  code: string,
  bytes: string,
  at: number,
): void {
  expect(run.code).toBe(1);
  expect(run.error()["code"]).toBe(code);
  unchanged(bytes, at);
}

/** `host save` of the envelope in `file` at revision `at`, of a reviewed preview when given. */
function hostSave(file: string, at: number, preview?: string) {
  const reviewed = preview === undefined ? [] : ["--expected-preview", preview];
  return awr([
    "--json",
    "host",
    "save",
    "--input",
    file,
    "--expected-revision",
    `${at}`,
    ...reviewed,
  ]);
}

function envelope(origin: string, change: Answer, key = "save-1"): string {
  const file = join(root, `${key}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      request_key: key,
      actor: { host: "desktop-app", subject: "local-user", origin },
      reason: "Save the user's explicit next-action edit",
      change,
    }),
  );
  return file;
}

/** The flags of `work edit` that accept its reviewed preview `answer` at revision `rev`. */
function acceptReviewed(answer: Answer, rev: number): string[] {
  return [
    "--accept",
    "--source-fingerprint",
    (answer["change"] as Answer)["source_fingerprint"] as string,
    "--expected-preview",
    answer["preview_fingerprint"] as string,
    "--expected-revision",
    String(rev),
  ];
}

/** The indexed fingerprint of the work ledger, as a preview reports it. */
function sourceFingerprint(): string {
  const preview = awr(["--json", "work", "edit", "W-2", ...EDIT]).json();
  return (preview["review"] as { source: { fingerprint: string } }).source.fingerprint;
}

describe("awr work edit", () => {
  it("previews without writing, then applies exactly the reviewed edit once", () => {
    const at = revision();
    const preview = awr(["--json", "work", "edit", "W-2", ...EDIT]);
    expect(preview.code, preview.stderr).toBe(0);
    const answer = preview.json();
    expect(answer).toMatchObject({
      status: "preview",
      change_kind: "work_edit",
      request_id: "edit-1",
      source_write_performed: false,
      review: { after: { next_action: "Write the orders migration" } },
    });
    unchanged(LEDGER, at);
    expect(awr(["--json", "host", "status", "--key", "edit-1"]).json()).toMatchObject({
      found: false,
    });

    // Human output: status, request, revision, the review, preview, next, outcome query.
    const human = awr(["work", "edit", "W-2", ...EDIT]);
    expect(human.stdout).toContain("Work edit: preview\nRequest: edit-1\nRevision: ");
    expect(human.stdout).toContain(`Preview: ${answer["preview_fingerprint"]}`);
    expect(human.stdout).toContain("Outcome query: awr host status --key edit-1");

    // --accept without the reviewed facts is a usage error: exit 2, nothing written.
    const bare = awr(["--json", "work", "edit", "W-2", ...EDIT, "--accept"]);
    expect(bare.code).toBe(2);
    expect(bare.error()["code"]).toBe("InvalidInput");
    expect(bare.error()["message"]).toContain("--source-fingerprint, --expected-preview");
    unchanged(LEDGER, at);

    const accept = acceptReviewed(answer, at);
    // A fingerprint that is not the reviewed one: SourceConflict, exit 1, nothing written.
    const wrong = awr([
      "--json",
      "work",
      "edit",
      "W-2",
      ...EDIT,
      ...accept.slice(0, 3),
      "--expected-preview",
      `sha256:${"0".repeat(64)}`,
      "--expected-revision",
      String(at),
    ]);
    refusedUnchanged(wrong, "SourceConflict", LEDGER, at);

    const applied = awr(["--json", "work", "edit", "W-2", ...EDIT, ...accept]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.json()).toMatchObject({
      status: "completed",
      write_outcome: "applied",
      source_write_performed: true,
      project_revision: at + 1,
    });
    // Byte-exact: that one value, every other byte kept.
    expect(ledger()).toBe(LEDGER.replace(OLD_NEXT, NEW_NEXT));

    // The same command again answers its recorded outcome, writing nothing.
    const again = awr(["--json", "work", "edit", "W-2", ...EDIT, ...accept]);
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ historical_outcome: true, source_write_performed: false });
    unchanged(LEDGER.replace(OLD_NEXT, NEW_NEXT), at + 1);

    // `host status` finds the work_edit; `host recover` of a settled change writes nothing.
    const status = awr(["host", "status", "--key", "edit-1"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("Work edit: completed");
    expect(
      awr([
        "--json",
        "host",
        "recover",
        "--key",
        "edit-1",
        "--expected-revision",
        String(at + 1),
      ]).json()["status"],
    ).toBe("completed");
    unchanged(LEDGER.replace(OLD_NEXT, NEW_NEXT), at + 1);
  }, 60_000);

  it("refuses a stale revision and an outside edit, leaving bytes and revision", () => {
    const at = revision();
    const answer = awr(["--json", "work", "edit", "W-2", ...EDIT]).json();
    const accept = (rev: number) => acceptReviewed(answer, rev);
    const stale = awr(["--json", "work", "edit", "W-2", ...EDIT, ...accept(at + 5)]);
    refusedUnchanged(stale, "RevisionConflict", LEDGER, at);

    // Edited outside after the review (and reindexed by a read): the review no longer holds.
    const outside = LEDGER.replace("title: Cart page", "title: Cart page, edited");
    writeFileSync(join(root, "work-ledger.yaml"), outside);
    const now = revision();
    const conflict = awr(["--json", "work", "edit", "W-2", ...EDIT, ...accept(now)]);
    refusedUnchanged(conflict, "SourceConflict", outside, now);
  }, 60_000);
});

describe("awr host preview|save|status|recover", () => {
  const fields = (fingerprint: string, next = "Review the reading notes") => ({
    operation: "fields",
    kind: "work_item",
    target: "W-2",
    source_fingerprint: fingerprint,
    fields: { next_action: next },
  });

  it("previews, then saves the reviewed change with its fingerprint", () => {
    const at = revision();
    const file = envelope("ai_accepted", fields(sourceFingerprint()));
    const preview = awr(["--json", "host", "preview", "--input", file]);
    expect(preview.code, preview.stderr).toBe(0);
    const answer = preview.json();
    expect(answer).toMatchObject({
      status: "preview",
      change_kind: "edit",
      source_write_performed: false,
      preview: { plan: { work: "W-2", after: { next_action: "Review the reading notes" } } },
    });
    unchanged(LEDGER, at);
    const fingerprint = (answer["preview"] as Answer)["fingerprint"] as string;
    const human = awr(["host", "preview", "--input", file]);
    expect(human.stdout).toContain("Host save: preview");
    expect(human.stdout).toContain(`--expected-preview ${fingerprint}`);

    // An AI origin saves only a reviewed preview.
    const unreviewed = hostSave(file, at);
    refusedUnchanged(unreviewed, "InvalidInput", LEDGER, at);
    // --expected-revision is required: a usage error.
    expect(awr(["--json", "host", "save", "--input", file]).code).toBe(2);

    const saved = hostSave(file, at, fingerprint);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.json()).toMatchObject({ status: "completed", change_kind: "edit" });
    const after = LEDGER.replace(OLD_NEXT, "next_action: Review the reading notes");
    expect(ledger()).toBe(after);
    expect(awr(["--json", "host", "status", "--key", "save-1"]).json()).toMatchObject({
      found: true,
      status: "completed",
      change_kind: "edit",
      current_source: "after",
    });
    unchanged(after, at + 1);
  }, 60_000);

  it("saves a person's own edit without a preview, and refuses what does not hold", () => {
    const at = revision();
    const reviewed = sourceFingerprint();
    // A stale revision: RevisionConflict, nothing written.
    const file = envelope("human", fields(reviewed, "Ask the user"), "human-1");
    const stale = hostSave(file, at + 3);
    refusedUnchanged(stale, "RevisionConflict", LEDGER, at);
    // Work state is not a field a save may set.
    const status = envelope(
      "human",
      { ...fields(reviewed), fields: { status: "completed" } },
      "human-2",
    );
    const closed = hostSave(status, at);
    refusedUnchanged(closed, "Unsupported", LEDGER, at);
    // An envelope of another version, or without an actor: InvalidInput before anything is read.
    writeFileSync(join(root, "v2.json"), JSON.stringify({ version: 2, request_key: "x" }));
    const v2 = awr(["--json", "host", "preview", "--input", "v2.json"]);
    expect(v2.code).toBe(1);
    expect(v2.error()).toMatchObject({ code: "InvalidInput", details: { field: "version" } });

    const saved = hostSave(file, at);
    expect(saved.code, saved.stderr).toBe(0);
    expect(ledger()).toBe(LEDGER.replace(OLD_NEXT, "next_action: Ask the user"));
    expect(revision()).toBe(at + 1);
  }, 60_000);

  it("recovers a save interrupted after its source was written, writing it once", () => {
    const at = revision();
    const file = envelope("human", fields(sourceFingerprint(), "Resume me"), "killed-1");
    const killed = awr(
      ["--json", "host", "save", "--input", file, "--expected-revision", `${at}`],
      {
        AWR_TEST_FAULT: "change_after_source_write",
      },
    );
    expect(killed.signal).toBe("SIGKILL");
    const written = LEDGER.replace(OLD_NEXT, "next_action: Resume me");
    expect(ledger()).toBe(written);
    const pending = awr(["host", "status", "--key", "killed-1"]);
    expect(pending.stdout).toContain("Host save: pending_recovery");
    expect(pending.stdout).toContain("awr host recover --key killed-1 --expected-revision REV");
    const current = awr(["--json", "host", "status", "--key", "killed-1"]).json();
    expect(current["status"]).toBe("pending_recovery");
    const now = current["project_revision"] as number;
    const recovered = awr([
      "--json",
      "host",
      "recover",
      "--key",
      "killed-1",
      "--expected-revision",
      String(now),
    ]);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.json()).toMatchObject({ status: "completed" });
    expect(ledger()).toBe(written);
  }, 60_000);
});

describe("awr work create and awr batch", () => {
  it("previews a draft without writing, then creates it once; status and recover read it", () => {
    const at = revision();
    const create = ["work", "create", "--title", "Read the notes", "--request-key", "c-1"];
    const preview = awr(["--json", ...create]);
    expect(preview.code, preview.stderr).toBe(0);
    const answer = preview.json();
    expect(answer).toMatchObject({ status: "preview", change_kind: "create", draft: true });
    const key = answer["external_key"] as string;
    expect(key).toMatch(/^WORK-/);
    unchanged(LEDGER, at);
    const human = awr(create);
    expect(human.stdout).toContain(`Work creation: preview\nWork key: ${key}\nRequest: c-1`);
    expect(human.stdout).toContain("Outcome query: awr work create-status --key c-1");

    // Accepting needs the reviewed preview and revision (InvalidInput, exit 1).
    const bare = awr(["--json", ...create, "--accept"]);
    expect(bare.code).toBe(1);
    expect(bare.error()["code"]).toBe("InvalidInput");
    // --title/--request-key are required without --input, and clash with it: usage errors.
    expect(awr(["--json", "work", "create"]).code).toBe(2);
    writeFileSync(
      join(root, "create.json"),
      JSON.stringify({ version: 1, request_key: "c-2", title: "T" }),
    );
    expect(awr(["--json", "work", "create", "--input", "create.json", "--title", "T"]).code).toBe(
      2,
    );
    unchanged(LEDGER, at);

    const fingerprint = (answer["preview"] as Answer)["fingerprint"] as string;
    const accept = ["--accept", "--expected-preview", fingerprint, "--expected-revision", `${at}`];
    const created = awr(["--json", ...create, ...accept]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ status: "completed", external_key: key });
    const after = ledger();
    expect(after.startsWith(LEDGER.trimEnd())).toBe(true);
    expect(after.slice(LEDGER.trimEnd().length)).toContain(`id: ${key}`);
    expect(awr(["--json", "work", "show", key]).json()).toMatchObject({
      work: { status: "draft" },
    });

    const again = awr(["--json", ...create, ...accept]);
    expect(again.json()).toMatchObject({ historical_outcome: true, source_write_performed: false });
    expect(awr(["--json", "work", "create-status", "--key", "c-1"]).json()).toMatchObject({
      found: true,
      status: "completed",
      external_key: key,
    });
    const recovered = awr([
      "--json",
      "work",
      "create-recover",
      "--key",
      "c-1",
      "--expected-revision",
      `${at + 1}`,
    ]);
    expect(recovered.code).toBe(0);
    unchanged(after, at + 1);
    // The request file: the same creation by its own fields.
    const fromFile = awr(["--json", "work", "create", "--input", "create.json"]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.json()).toMatchObject({ status: "preview", request_id: "c-2" });
  }, 60_000);

  it("previews a batch of one ledger without writing, then applies it once", () => {
    const at = revision();
    const file = envelope(
      "human",
      {
        kind: "ledger",
        source_id: "work-ledger.yaml",
        source_fingerprint: sourceFingerprint(),
        operations: [
          { operation: "fields", target: "W-3", fields: { next_action: "Pick the provider" } },
          {
            operation: "import",
            external_key: "READ-2",
            title: "Read the follow-up",
            fields: { acceptance: ["Useful notes"] },
            duplicate: "fail",
          },
        ],
      },
      "batch-1",
    );
    const preview = awr(["--json", "batch", "change", "--input", file]);
    expect(preview.code, preview.stderr).toBe(0);
    const answer = preview.json();
    expect(answer).toMatchObject({ status: "preview", change_kind: "batch" });
    unchanged(LEDGER, at);
    expect(awr(["--json", "batch", "change", "--input", file, "--accept"]).code).toBe(2);
    expect(awr(["--json", "batch", "status", "--key", "batch-1"]).json()).toMatchObject({
      found: false,
    });
    const fingerprint = (answer["preview"] as Answer)["fingerprint"] as string;
    const accept = ["--accept", "--expected-preview", fingerprint, "--expected-revision"];
    const stale = awr(["--json", "batch", "change", "--input", file, ...accept, `${at + 2}`]);
    expect(stale.error()["code"]).toBe("RevisionConflict");
    unchanged(LEDGER, at);
    const applied = awr(["--json", "batch", "change", "--input", file, ...accept, `${at}`]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.json()).toMatchObject({ status: "completed", change_kind: "batch" });
    const after = ledger();
    expect(after).toContain("id: READ-2");
    expect(after).toContain("Pick the provider");
    expect(awr(["batch", "status", "--key", "batch-1"]).stdout).toContain(
      "Batch change: completed",
    );
    expect(
      awr(["--json", "batch", "recover", "--key", "batch-1", "--expected-revision", `${at + 1}`])
        .code,
    ).toBe(0);
    unchanged(after, at + 1);
  }, 60_000);
});
