import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Backend, initProject, type Ledger, openLedger } from "@awr/awr-ledger";
import { freshDatabase, type TestDatabase } from "./backends.js";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");

/** Copies a fixture project into a fresh temporary root. */
export function copyFixture(name: string): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), `awr-fixture-${name}-`));
  cpSync(join(FIXTURES, name), root, { recursive: true });
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface OpenProject {
  root: string;
  ledger: Ledger;
  db: TestDatabase;
  close(): Promise<void>;
}

/** A fixture project, initialised with its manifest on a fresh database of the given backend. */
export async function openFixtureProject(name: string, backend: Backend): Promise<OpenProject> {
  const { root, remove } = copyFixture(name);
  return openProjectAt(root, join(root, "project.toml"), backend, remove);
}

/**
 * A project already written under `root`, initialised on a fresh database; close() calls
 * `remove`. When init fails, the database is closed and `remove` called before the error goes on.
 */
export async function openProjectAt(
  root: string,
  manifest: string,
  backend: Backend,
  remove: () => void,
): Promise<OpenProject> {
  const db = await freshDatabase(backend);
  try {
    await initProject({ root, manifest, accept: true, database: db.db });
  } catch (error) {
    await db.close();
    remove();
    throw error;
  }
  const ledger = await openLedger({ root, database: db.db });
  return {
    root,
    ledger,
    db,
    async close() {
      await ledger.close();
      await db.close();
      remove();
    },
  };
}

/**
 * The two-stream fixture (test/fixtures/workstreams, the original's workstream format),
 * initialised with its manifest; `edit` changes files of the copy before init.
 */
export async function openWorkstreamProject(
  backend: Backend,
  edit?: (root: string) => void,
): Promise<OpenProject> {
  const { root, remove } = copyFixture("workstreams");
  edit?.(root);
  return openProjectAt(root, join(root, "project.toml"), backend, remove);
}
