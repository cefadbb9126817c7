import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const GITIGNORE_ENTRIES = [".awr/state.db", ".awr/state.db-wal", ".awr/state.db-shm"];

/**
 * The files `awr init --accept` creates or changes, each with its undo: when init fails after it
 * began writing (a database error, an index refused), `rollback` puts the project back exactly as
 * it was: no `.awr/` it created, no `.awr/state.db`, the `.gitignore` bytes it had (or none).
 */
export class InitWrites {
  readonly created: string[] = [];
  readonly #undo: (() => void)[] = [];
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  /** Creates a directory (and missing parents); each one created is removed on rollback. */
  directory(relative: string): void {
    const missing: string[] = [];
    for (let dir = join(this.#root, relative); !existsSync(dir); dir = dirname(dir))
      missing.push(dir);
    mkdirSync(join(this.#root, relative), { recursive: true });
    for (const dir of missing) this.#undo.push(() => rmSync(dir, { recursive: true, force: true }));
  }

  /** Writes a file that must not exist yet. */
  newFile(relative: string, text: string): void {
    this.directory(dirname(relative));
    const path = join(this.#root, relative);
    writeFileSync(path, text, { flag: "wx" });
    this.created.push(relative);
    this.#undo.push(() => rmSync(path, { force: true }));
  }

  /** Records a SQLite ledger file about to be created, so rollback removes it and its journals. */
  database(relative: string): void {
    const path = join(this.#root, relative);
    if (existsSync(path)) return;
    this.created.push(relative);
    this.#undo.push(() => {
      for (const suffix of ["", "-wal", "-shm", "-journal"])
        rmSync(`${path}${suffix}`, { force: true });
    });
  }

  /** Adds the ledger's runtime files to .gitignore (creating it if needed). */
  gitignore(): void {
    const path = join(this.#root, ".gitignore");
    const before = existsSync(path) ? readFileSync(path) : undefined;
    const current = before?.toString("utf8") ?? "";
    const lines = new Set(current.split(/\r?\n/).map((l) => l.trim()));
    const missing = GITIGNORE_ENTRIES.filter((e) => !lines.has(e));
    if (missing.length === 0) return;
    const prefix = current === "" || current.endsWith("\n") ? current : `${current}\n`;
    writeFileSync(path, `${prefix}# AWR runtime state (awr init)\n${missing.join("\n")}\n`);
    this.created.push(".gitignore");
    this.#undo.push(() =>
      before === undefined ? rmSync(path, { force: true }) : writeFileSync(path, before),
    );
  }

  /** Undoes every write, newest first; a step that fails does not stop the others. */
  rollback(): void {
    for (const undo of this.#undo.reverse()) {
      try {
        undo();
      } catch {
        // Best effort: the remaining steps still run.
      }
    }
    this.#undo.length = 0;
  }
}
