import { existsSync } from "node:fs";
import { cp, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * `awr inspector --demo`: the bookshop of examples/demo-project (the quick start's project),
 * copied to a fresh temporary directory and initialised there as `awr init --accept` would, so
 * the board shows a real ledger's answers without touching any project of the user's. The build
 * ships the example in dist/demo-project/; from the sources it is read from the repository.
 */
function demoSource(): string {
  const candidates = [
    new URL("../../dist/demo-project/", import.meta.url),
    new URL("../../../../examples/demo-project/", import.meta.url),
  ].map((url) => fileURLToPath(url));
  const found = candidates.find((dir) => existsSync(join(dir, "work-ledger.yaml")));
  if (found === undefined) throw new Error("the demo project is missing from this installation");
  return found;
}

export interface DemoProject {
  root: string;
  /** Deletes the temporary copy; idempotent. */
  remove(): Promise<void>;
}

export async function createDemoProject(
  env: Readonly<Record<string, string | undefined>>,
  signal?: AbortSignal,
): Promise<DemoProject> {
  const parent = await realpath(await mkdtemp(join(tmpdir(), "awr-inspector-demo-")));
  const root = join(parent, "bookshop");
  const remove = () => rm(parent, { recursive: true, force: true });
  try {
    await cp(demoSource(), root, { recursive: true });
    const { initProject } = await import("@awr/awr-ledger");
    await initProject({ root, accept: true, env: env as NodeJS.ProcessEnv, signal });
  } catch (error) {
    await remove();
    throw error;
  }
  return { root, remove };
}
