import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/** The file whose presence marks an initialised AWR project root. */
export const PROJECT_MANIFEST = join(".awr", "project.toml");

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The project root for `start`, found like git finds a repository: `start` itself or the
 * nearest ancestor holding `.awr/project.toml`. Undefined when there is none.
 */
export async function findProjectRoot(start: string): Promise<string | undefined> {
  let dir = resolve(start);
  for (;;) {
    if (await isFile(join(dir, PROJECT_MANIFEST))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
