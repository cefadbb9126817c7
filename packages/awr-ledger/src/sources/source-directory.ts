import { createHash } from "node:crypto";
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LedgerError } from "../errors.js";
import { notRegular, realSourcePath } from "./source-file.js";

export interface DirectoryFile {
  /** The file's recorded path: the directory's recorded path joined with its relative name. */
  path: string;
  absolute: string;
}

export interface DirectoryListing {
  files: DirectoryFile[];
  /** sha256 over the sorted file paths: changes when a file is added, removed or renamed. */
  fingerprint: string;
}

const MARKDOWN = /\.(?:md|markdown)$/i;

/**
 * The Markdown files of a markdown-directory-v1 source, sorted: `.md`/`.markdown` regular files,
 * recursively unless `recursive = false`; hidden entries (a name starting with `.`), other files
 * and symlinked children are left out. Undefined when the directory does not exist; InvalidInput
 * when the path is not a directory or holds more than `maxFiles` files.
 */
export function listDecisionDirectory(
  absolute: string,
  recorded: string,
  label: string,
  options: { recursive: boolean; maxFiles: number },
): DirectoryListing | undefined {
  const real = realSourcePath(absolute, label);
  if (real === undefined) return undefined;
  const stat = lstatSync(real);
  if (!stat.isDirectory()) {
    if (stat.isFile()) {
      throw new LedgerError(
        "InvalidInput",
        `Source ${label} is a file, but adapter markdown-directory-v1 reads a directory of decision files; use markdown-heading-v1 for a single file.`,
        { path: label },
      );
    }
    throw notRegular(
      label,
      stat.isFIFO() ? "a FIFO (named pipe)" : "not a directory",
      "markdown-directory-v1",
    );
  }
  const files: DirectoryFile[] = [];
  const pending: string[] = [""];
  while (pending.length > 0) {
    const sub = pending.pop() as string;
    for (const entry of readdirSync(join(real, sub), { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const rel = sub === "" ? entry.name : `${sub}/${entry.name}`;
      if (entry.isDirectory() && options.recursive) pending.push(rel);
      else if (entry.isFile() && MARKDOWN.test(entry.name)) {
        files.push({
          path: `${recorded.replace(/\/+$/, "")}/${rel}`,
          absolute: join(absolute, rel),
        });
      }
      if (files.length > options.maxFiles) {
        throw new LedgerError(
          "InvalidInput",
          `Source ${label} holds more than ${options.maxFiles} Markdown files; raise max_entities in its [sources.options] or split the directory.`,
          { path: label, max_entities: options.maxFiles },
        );
      }
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const fingerprint = `sha256:${createHash("sha256")
    .update(files.map((f) => f.path).join("\n"))
    .digest("hex")}`;
  return { files, fingerprint };
}
