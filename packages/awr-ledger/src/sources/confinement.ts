import { realpathSync } from "node:fs";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { LedgerError } from "../errors.js";

function outside(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function refuse(path: string, root: string, why: string): never {
  throw new LedgerError(
    "RuleViolation",
    `Source path "${path}" ${why}; sources must stay inside the project root ${root}: use a ` +
      "relative path to a file inside the project (move or copy the file there).",
    { path, root },
  );
}

/**
 * Resolves a manifest source path against the project root, refusing absolute paths, `..`
 * escapes and symlinks whose real path leaves the root. Returns the normalised relative path
 * (with `/` separators) and the absolute path. A path that does not exist yet is allowed.
 */
export function confineSourcePath(
  root: string,
  path: string,
): { relative: string; absolute: string } {
  if (path.trim() === "") refuse(path, root, "is empty");
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("~")) {
    refuse(path, root, "is absolute");
  }
  const rel = normalize(path);
  if (outside(rel)) refuse(path, root, "escapes the project root with ..");
  const absolute = join(root, rel);
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {
    // A missing root is reported by the caller when it reads sources.
  }
  let real: string | undefined;
  try {
    real = realpathSync(absolute);
  } catch {
    real = undefined;
  }
  if (real !== undefined && outside(relative(realRoot, real))) {
    refuse(path, root, `is a symlink whose real path ${real} leaves the project root`);
  }
  return { relative: rel.split(sep).join("/"), absolute };
}
