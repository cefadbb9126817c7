import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { LedgerError } from "../errors.js";

function outside(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function within(dir: string, path: string): boolean {
  return !outside(relative(dir, path));
}

function refuse(path: string, root: string, authorized: readonly string[], why: string): never {
  const roots =
    authorized.length === 0
      ? "; use a relative path to a file inside the project (move or copy the file there), or add " +
        "its directory to [project] authorized_roots"
      : `or inside an authorized root (${authorized.join(", ")})`;
  throw new LedgerError(
    "RuleViolation",
    `Source path "${path}" ${why}; sources must stay inside the project root ${root} ${roots}.`,
    { path, root, authorized_roots: [...authorized] },
    {
      next: `Point the source at a file inside ${root}${authorized.length === 0 ? "" : " or an authorized root"} (a symbolic link must resolve there too), or add its directory to [project] authorized_roots in .awr/project.toml.`,
    },
  );
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The manifest's `[project] authorized_roots` as real directory paths: each is absolute or
 * relative to the project root and must be an existing directory.
 */
export function resolveAuthorizedRoots(root: string, roots: readonly string[] = []): string[] {
  return roots.map((entry) => {
    const path = resolve(root, entry);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new LedgerError(
        "InvalidInput",
        `Authorized root "${entry}" (${path}) does not exist; create it or remove it from [project] authorized_roots.`,
        { authorized_root: entry },
      );
    }
    if (!statSync(real).isDirectory()) {
      throw new LedgerError(
        "InvalidInput",
        `Authorized root "${entry}" (${real}) is not a directory; list directories in [project] authorized_roots.`,
        { authorized_root: entry },
      );
    }
    return real;
  });
}

/**
 * Resolves a manifest source path: a relative path must stay inside the project root (after
 * `.`/`..` are normalised); an absolute path must lie inside the root or one of the
 * `authorizedRoots` (real directory paths, see resolveAuthorizedRoots); and a symlink's real
 * path must stay inside one of them too. `~` and Windows drive paths are refused. Returns the
 * path as recorded (project-relative with `/` separators, or absolute when it lies outside the
 * root) and the absolute path. A path that does not exist yet is allowed.
 */
export function confineSourcePath(
  root: string,
  path: string,
  authorizedRoots: readonly string[] = [],
): { relative: string; absolute: string } {
  if (path.trim() === "") refuse(path, root, authorizedRoots, "is empty");
  if (/^[A-Za-z]:[\\/]/.test(path) || path.startsWith("~")) {
    refuse(path, root, authorizedRoots, "is not a path on this machine");
  }
  const realRoot = realpathOr(root);
  const allowed = [root, realRoot, ...authorizedRoots];
  let absolute: string;
  if (isAbsolute(path)) {
    absolute = normalize(path);
    if (!allowed.some((dir) => within(dir, realpathOr(absolute)))) {
      refuse(path, root, authorizedRoots, "is absolute and outside every allowed root");
    }
  } else {
    const rel = normalize(path);
    if (outside(rel)) refuse(path, root, authorizedRoots, "escapes the project root with ..");
    absolute = join(root, rel);
  }
  let real: string | undefined;
  try {
    real = realpathSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") {
      throw new LedgerError(
        "InvalidInput",
        `Source "${path}" is a symlink loop; point the link at a real file or list the file itself.`,
        { path },
      );
    }
    real = undefined;
  }
  if (real !== undefined && !allowed.some((dir) => within(dir, real))) {
    refuse(
      path,
      root,
      authorizedRoots,
      `is a symlink whose real path ${real} leaves the allowed roots`,
    );
  }
  const inRoot = !outside(relative(root, absolute));
  return {
    relative: inRoot ? relative(root, absolute).split(sep).join("/") : absolute,
    absolute,
  };
}
