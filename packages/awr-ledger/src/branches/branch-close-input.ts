import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { promisify } from "node:util";
import { LIMITS } from "../core/limits.js";
import { unknownNames } from "../core/unknown-names.js";
import { LedgerError } from "../errors.js";
import { checkGitRef } from "../runtime/branch-select.js";
import { confineSourcePath } from "../sources/confinement.js";

const run = promisify(execFile);

// The close input file of `awr branch close --input FILE` (docs/design/work-branches.md R5,
// docs/compatibility/runtime.md) and the merge evidence it names.

export type LoopResolution =
  | { outcome: "resolved"; reason: string; references: string[] }
  | { outcome: "carry_forward"; reason: string; work_item_key: string };

export interface LoopDisposition {
  checkpoint_id: string;
  index: number;
  text: string;
  resolution: LoopResolution;
}

export type MergeInput =
  | { kind: "git"; source_ref: string; target_ref: string }
  | { kind: "source"; locator: string; sha256: string };

export interface CloseInput {
  version: 1;
  outcome: "merged" | "abandoned";
  summary: string;
  merge: MergeInput | null;
  open_loops: LoopDisposition[];
}

const nonBlank = (s: unknown): s is string =>
  typeof s === "string" &&
  s.trim() !== "" &&
  Buffer.byteLength(s, "utf8") <= LIMITS.branchCloseTextBytes;

function invalid(message: string): never {
  throw new LedgerError("InvalidInput", message, { field: "input" });
}

/** Checks the close input's shape; every problem is InvalidInput naming the rule. */
export function checkCloseInput(value: unknown): CloseInput {
  const input = (value ?? {}) as Partial<CloseInput> & Record<string, unknown>;
  const known = ["version", "outcome", "summary", "merge", "open_loops"];
  const unknown = Object.keys(input).filter((k) => !known.includes(k)).length;
  if (typeof value !== "object" || value === null || Array.isArray(value) || unknown > 0) {
    invalid(
      `the branch close input must be an object with ${known.join(", ")}${unknown > 0 ? `; it has ${unknownNames(unknown, "input", known)}` : ""}`,
    );
  }
  const loops = input.open_loops;
  const merge = input.merge ?? null;
  if (
    input.version !== 1 ||
    (input.outcome !== "merged" && input.outcome !== "abandoned") ||
    !nonBlank(input.summary) ||
    !Array.isArray(loops) ||
    loops.length > LIMITS.branchCloseLoops ||
    (input.outcome === "merged") !== (merge !== null)
  ) {
    invalid(
      `branch close requires version 1, an outcome (merged or abandoned), a summary, at most ${LIMITS.branchCloseLoops} loop dispositions and merge evidence exactly when outcome is merged`,
    );
  }
  if (merge !== null) {
    if (merge.kind === "git") {
      checkGitRef(String(merge.source_ref ?? ""));
      checkGitRef(String(merge.target_ref ?? ""));
    } else if (
      merge.kind !== "source" ||
      !nonBlank(merge.locator) ||
      !/^[0-9a-fA-F]{64}$/.test(String(merge.sha256))
    ) {
      invalid("source merge needs a report locator and SHA256");
    }
  }
  for (const item of loops) {
    const r = item?.resolution;
    const valid =
      nonBlank(item?.checkpoint_id) &&
      Number.isInteger(item?.index) &&
      nonBlank(item?.text) &&
      (r?.outcome === "resolved"
        ? nonBlank(r.reason) &&
          Array.isArray(r.references) &&
          r.references.length > 0 &&
          r.references.length <= LIMITS.branchCloseReferences &&
          r.references.every(nonBlank)
        : r?.outcome === "carry_forward" && nonBlank(r.reason) && nonBlank(r.work_item_key));
    if (!valid) {
      invalid(
        "each open loop needs its checkpoint_id, index, exact text and a reason with resolution references or a target work key",
      );
    }
  }
  // An abandoned close may leave `merge` out; the result always says null for "no merge".
  return { ...input, merge } as CloseInput;
}

async function git(root: string, args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd: root, timeout: 10_000, maxBuffer: 1 << 20 });
  return stdout.trim();
}

/**
 * Observes the merge evidence, read only: a source report must be a relative project file of
 * 1 byte to 1 MiB with the stated SHA-256; a Git merge needs the target checked out at HEAD, the
 * source tip its ancestor and no tracked change. A differing hash or moved refs are
 * SourceConflict.
 */
export async function observeMerge(
  root: string,
  merge: MergeInput,
  nowMs: number,
): Promise<Record<string, unknown>> {
  if (merge.kind === "source") {
    const { absolute, relative } = confineSourcePath(root, merge.locator);
    let size: number;
    try {
      size = statSync(absolute).size;
    } catch {
      invalid(`merge report ${merge.locator} does not exist in the project`);
    }
    if (size < 1 || size > LIMITS.mergeReportBytes) {
      invalid(`merge report ${merge.locator} must be 1 byte to 1 MiB; it is ${size} bytes`);
    }
    const sha256 = createHash("sha256").update(readFileSync(absolute)).digest("hex");
    if (sha256 !== merge.sha256.toLowerCase()) {
      throw new LedgerError(
        "SourceConflict",
        `merge report ${merge.locator} has SHA-256 ${sha256}, not ${merge.sha256}; record the report's current hash`,
        { locator: relative, sha256 },
      );
    }
    return { kind: "source", locator: relative, sha256, size, observed_at: nowMs };
  }
  const commit = async (ref: string) => {
    try {
      return await git(root, ["rev-parse", "--verify", "--end-of-options", `${ref}^{commit}`]);
    } catch {
      return invalid(`git ref ${ref} does not resolve to a commit in the project's repository`);
    }
  };
  const source = await commit(merge.source_ref);
  const target = await commit(merge.target_ref);
  const head = await git(root, ["rev-parse", "HEAD"]);
  const ancestor = await git(root, ["merge-base", "--is-ancestor", source, head]).then(
    () => true,
    () => false,
  );
  const dirty = await git(root, ["status", "--porcelain", "--untracked-files=no"]);
  if (target !== head || !ancestor || dirty !== "") {
    throw new LedgerError(
      "SourceConflict",
      `the git merge is not observable: ${target !== head ? `${merge.target_ref} is not the checked-out HEAD; ` : ""}${ancestor ? "" : `${merge.source_ref} is not an ancestor of HEAD; `}${dirty === "" ? "" : "tracked files have uncommitted changes"}`.replace(
        /; $/,
        "",
      ),
      { source_ref: merge.source_ref, target_ref: merge.target_ref },
    );
  }
  const binding = (ref: string, sha: string) => ({
    requested_ref: ref,
    commit_sha: sha,
    observed_at: nowMs,
  });
  return {
    kind: "git",
    source: binding(merge.source_ref, source),
    target: binding(merge.target_ref, target),
    head_sha: head,
  };
}
