import { join, resolve } from "node:path";
import { LIMITS } from "../core/limits.js";
import { type AwrErrorCode, isLedgerError, LedgerError } from "../errors.js";
import { confineSourcePath, resolveAuthorizedRoots } from "../sources/confinement.js";
import { MISSING_FINGERPRINT, statFile } from "../sources/fingerprint.js";
import type { Manifest, ManifestSource } from "../sources/manifest.js";
import { MANIFEST_PATH, type ReadSource } from "../sources/read-sources.js";
import { listDecisionDirectory } from "../sources/source-directory.js";
import { readSourceFile, type SourceFileRead } from "../sources/source-file.js";
import { sourceCaps } from "../sources/source-options.js";
import type { LedgerStore } from "../storage/ledger-store.js";
import { PreparedQuery } from "../storage/prepared-query.js";
import type { SourceTable } from "../storage/schema.js";

/** What the stale check compares with the files: each source as last indexed. */
const indexedSourcesQuery = new PreparedQuery<
  Record<string, never>,
  Pick<SourceTable, "path" | "fingerprint" | "size" | "mtime_ms" | "kind" | "adapter">
>((db) =>
  db.selectFrom("sources").select(["path", "fingerprint", "size", "mtime_ms", "kind", "adapter"]),
);

const manifestFingerprintQuery = new PreparedQuery<
  Record<string, never>,
  { manifest_fingerprint: string | null }
>((db) => db.selectFrom("project_state").select("manifest_fingerprint"));

interface Seen {
  size: number;
  mtime_ms: number;
  fingerprint: string;
}

/** A fingerprint no file has: the unit can no longer be read as it was (reindex explains why). */
const UNREADABLE = "unreadable";

/**
 * A changed source the reindex would refuse, with the refusal it would give: `code` and
 * `message` are those of the reindex's error for that source (a path that leaves the allowed
 * roots, a FIFO, a directory, a file over its cap, a credential, a source that cannot be
 * parsed). The message names the file, never its content.
 */
export interface SourceRefusal {
  path: string;
  code: AwrErrorCode;
  message: string;
  details?: Record<string, unknown> | undefined;
}

/** What the stale check found: every changed path, and those of them a reindex would refuse. */
export interface SourceScan {
  changed: string[];
  /** A subset of `changed`, in path order; filled in full only by `scan({ explain: true })`. */
  refused: SourceRefusal[];
}

function refusalOf(path: string, error: LedgerError): SourceRefusal {
  return {
    path,
    code: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}

/**
 * Finds sources changed since the last index, cheaply: a file whose size and mtime match what
 * was recorded is taken as unchanged (one stat, nothing opened); only a file whose stat differs
 * is read. Before it is read, its path goes through the reindex's own confinement
 * (confineSourcePath with the manifest's authorized roots), so a source that became a symlink
 * leaving the project is never opened; then it is read as the reindex reads it (only a regular
 * file, under its byte cap, see source-file.ts) and hashed; the hash is remembered per (size,
 * mtime), so a touched-but-identical file is hashed once. A markdown-directory-v1 directory is
 * confined and listed again each time (a file added or removed changes its fingerprint). Never
 * writes and never throws for a source that cannot be read: that source is reported changed,
 * with the reindex's refusal when the confinement or the read gave one.
 */
export class StaleChecker {
  readonly #seen = new Map<string, Seen>();

  async changedPaths(store: LedgerStore, root: string, manifest?: Manifest): Promise<string[]> {
    return (await this.scan(store, root, manifest)).changed;
  }

  /**
   * The changed paths with the refusals found on the way. With `explain` (source scan, doctor:
   * never the hot path before a read or write), each changed file that could be read is also
   * parsed as the reindex would parse it, so a source holding a credential (held back) or one
   * that cannot be parsed is reported refused with the reindex's message too.
   */
  async scan(
    store: LedgerStore,
    root: string,
    manifest?: Manifest,
    options: { explain?: boolean } = {},
  ): Promise<SourceScan> {
    const [rows, state] = await Promise.all([
      indexedSourcesQuery.all(store.db, {}),
      manifestFingerprintQuery.first(store.db, {}),
    ]);
    const changed: string[] = [];
    const refused: SourceRefusal[] = [];
    const explained: { read: ReadSource }[] = [];
    const manifestFile = join(root, MANIFEST_PATH);
    const manifestStat = statFile(manifestFile);
    const manifestPrint =
      manifestStat === undefined
        ? null
        : await this.#manifestFingerprint(manifestFile, LIMITS.manifestBytes, manifestStat);
    if (manifestPrint !== (state?.manifest_fingerprint ?? null)) changed.push(MANIFEST_PATH);
    const confine = confiner(root, manifest);
    for (const row of rows) {
      const absolute = resolve(root, row.path);
      const source = manifest === undefined ? undefined : owningSource(manifest, row.path);
      const refuse = (error: unknown): void => {
        changed.push(row.path);
        if (isLedgerError(error)) refused.push(refusalOf(row.path, error));
      };
      if (row.kind === "directory") {
        try {
          confine(row.path);
          if (directoryPrint(absolute, row.path, source) !== row.fingerprint)
            changed.push(row.path);
        } catch (error) {
          refuse(error);
        }
        continue;
      }
      const stat = statFile(absolute);
      if (stat === undefined) {
        if (row.fingerprint === MISSING_FINGERPRINT) continue;
        try {
          // Gone, or a symlink loop (which the stat cannot tell apart; the reindex refuses it).
          confine(row.path);
          changed.push(row.path);
        } catch (error) {
          refuse(error);
        }
        continue;
      }
      if (stat.size === Number(row.size) && stat.mtime_ms === Number(row.mtime_ms)) continue;
      const { maxBytes } = sourceCaps(row.adapter, source?.options ?? {});
      try {
        confine(row.path);
        const explain = options.explain === true && source !== undefined;
        const read = explain
          ? await readSourceFile(absolute, row.path, maxBytes, row.adapter)
          : undefined;
        const fingerprint =
          read === undefined
            ? await this.#fingerprint(absolute, row.path, maxBytes, row.adapter, stat)
            : read.fingerprint;
        if (fingerprint === row.fingerprint) continue;
        changed.push(row.path);
        if (read !== undefined && source !== undefined) {
          explained.push({ read: unitOf(source, row.path, absolute, read) });
        }
      } catch (error) {
        refuse(error);
      }
    }
    for (const { read } of explained) {
      const refusal = await parseRefusal(read);
      if (refusal !== undefined) refused.push(refusal);
    }
    refused.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { changed: changed.sort(), refused };
  }

  /** Throws SourceStale `{changed_paths}` when any source changed since the last index. */
  async assertFresh(store: LedgerStore, root: string, manifest?: Manifest): Promise<void> {
    const changed = await this.changedPaths(store, root, manifest);
    if (changed.length === 0) return;
    throw new LedgerError(
      "SourceStale",
      `Sources changed since the last index: ${changed.join(", ")}. Run \`awr source reindex\` ` +
        "(or awr_source_reindex) and read again.",
      { changed_paths: changed },
    );
  }

  /**
   * The fingerprint of a confined source file as the reindex would read it; a refusal of the
   * read (not a regular file, over its cap) is thrown. Unreadable for any other failure.
   * `stat`: the file's stat, when the caller just took it.
   */
  async #fingerprint(
    absolute: string,
    label: string,
    maxBytes: number,
    adapter: string,
    stat = statFile(absolute),
  ): Promise<string> {
    if (stat === undefined) return MISSING_FINGERPRINT;
    const seen = this.#seen.get(absolute);
    if (seen !== undefined && seen.size === stat.size && seen.mtime_ms === stat.mtime_ms)
      return seen.fingerprint;
    let fingerprint: string;
    try {
      fingerprint =
        (await readSourceFile(absolute, label, maxBytes, adapter))?.fingerprint ??
        MISSING_FINGERPRINT;
    } catch (error) {
      if (isLedgerError(error)) throw error;
      return UNREADABLE;
    }
    this.#seen.set(absolute, { ...stat, fingerprint });
    return fingerprint;
  }

  /** The manifest's own fingerprint (the project's file, never a planning source). */
  async #manifestFingerprint(
    absolute: string,
    maxBytes: number,
    stat: { size: number; mtime_ms: number },
  ): Promise<string> {
    try {
      return await this.#fingerprint(absolute, MANIFEST_PATH, maxBytes, "manifest", stat);
    } catch {
      return UNREADABLE;
    }
  }
}

/**
 * The reindex's confinement of recorded paths (confineSourcePath), with the manifest's
 * authorized roots resolved once, on first use: a check whose files all match their stat never
 * pays for it. Throws the reindex's refusal (RuleViolation for a path or a symlink leaving the
 * allowed roots, InvalidInput for a symlink loop or an authorized root that is gone).
 */
function confiner(root: string, manifest: Manifest | undefined): (path: string) => void {
  let authorized: string[] | LedgerError | undefined;
  return (path) => {
    if (authorized === undefined) {
      try {
        authorized = resolveAuthorizedRoots(root, manifest?.project.authorized_roots ?? []);
      } catch (error) {
        if (!isLedgerError(error)) throw error;
        authorized = error;
      }
    }
    if (authorized instanceof LedgerError) throw authorized;
    confineSourcePath(root, path, authorized);
  };
}

/** A file unit as the reindex reads it (readSource), from bytes read here. */
function unitOf(
  source: ManifestSource,
  path: string,
  absolute: string,
  read: SourceFileRead,
): ReadSource {
  const { bytes, fingerprint, size, mtime_ms } = read;
  return { source, kind: "file", path, absolute, snapshot: { fingerprint, size, mtime_ms, bytes } };
}

/**
 * What the reindex would answer for this changed unit once parsed, as a refusal: the
 * RuleViolation of a source held back for a credential, or the InvalidInput (or the issue's own
 * code) of a source that cannot be parsed. Undefined when the reindex would index it.
 */
async function parseRefusal(read: ReadSource): Promise<SourceRefusal | undefined> {
  const [{ parseSource }, { heldBackError }, { sourceErrorRefusal }, { isSecretIssue }] =
    await Promise.all([
      import("../sources/read-sources.js"),
      import("./index-sources.js"),
      import("./reindex-plan.js"),
      import("../sources/source-secrets.js"),
    ]);
  let issues: Awaited<ReturnType<typeof parseSource>>["issues"];
  try {
    ({ issues } = await parseSource(read));
  } catch (error) {
    return isLedgerError(error) ? refusalOf(read.path, error) : undefined;
  }
  const held = issues.filter(isSecretIssue);
  if (held.length > 0) return refusalOf(read.path, heldBackError(held));
  const errors = issues.filter((i) => i.severity === "error");
  return errors.length > 0 ? refusalOf(read.path, sourceErrorRefusal(errors)) : undefined;
}

/** The manifest source a recorded unit belongs to (a directory's files belong to it). */
export function owningSource(manifest: Manifest, path: string): ManifestSource | undefined {
  return manifest.sources.find(
    (s) =>
      s.path.replace(/\/+$/, "") === path ||
      (s.adapter === "markdown-directory-v1" && path.startsWith(`${s.path.replace(/\/+$/, "")}/`)),
  );
}

function directoryPrint(
  absolute: string,
  recorded: string,
  source: ManifestSource | undefined,
): string {
  try {
    const listing = listDecisionDirectory(absolute, recorded, recorded, {
      recursive: source?.options["recursive"] !== false,
      maxFiles: sourceCaps("markdown-directory-v1", source?.options ?? {}).maxEntities,
    });
    return listing?.fingerprint ?? MISSING_FINGERPRINT;
  } catch (error) {
    if (isLedgerError(error)) throw error;
    return UNREADABLE;
  }
}
