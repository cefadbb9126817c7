import { realpath } from "node:fs/promises";
import type { LedgerBackend } from "../ledger-backend.js";
import type { LedgerPort } from "../ledger-port.js";
import type { RegistryProject } from "../registry/registry-types.js";
import { AwrToolError } from "../tool-result.js";

interface OpenProject {
  readonly project: RegistryProject;
  readonly ledger: LedgerPort;
}

/**
 * The registry's projects with their open ledgers. Each use re-checks the project's identity
 * (the root is still canonical and its ledger still has the registered project_id), so a
 * project whose directory was swapped fails alone while the others keep serving. The operator's
 * log gets one line when a project starts failing the check and one when it passes again (the
 * clients' refusals alone would leave the operator who must fix it uninformed).
 */
export class ProjectDirectory {
  readonly #open = new Map<string, OpenProject>();
  readonly #failing = new Set<string>();

  private constructor(
    private readonly backend: LedgerBackend,
    private readonly log: ((line: string) => void) | undefined,
  ) {}

  static async open(
    projects: readonly RegistryProject[],
    backend: LedgerBackend,
    options: { signal?: AbortSignal; log?: ((line: string) => void) | undefined } = {},
  ): Promise<ProjectDirectory> {
    const directory = new ProjectDirectory(backend, options.log);
    try {
      for (const project of projects) {
        options.signal?.throwIfAborted();
        const ledger = await backend.open(project.root, options);
        directory.#open.set(project.key, { project, ledger });
      }
    } catch (error) {
      await directory.close();
      throw error;
    }
    return directory;
  }

  has(key: string): boolean {
    return this.#open.has(key);
  }

  project(key: string): RegistryProject | undefined {
    return this.#open.get(key)?.project;
  }

  /** The project's ledger after the identity check; rejects with RuleViolation on mismatch. */
  async use(key: string, options: { signal?: AbortSignal } = {}): Promise<OpenProject> {
    const entry = this.#open.get(key);
    if (!entry) throw new AwrToolError("RuleViolation", "project access denied");
    const { root, project_id } = entry.project;
    // Both checks run on every call (a swapped directory must fail at once), concurrently: each
    // is a few system calls with the ledger kept open, never a re-open per request.
    const [canonical, identity] = await Promise.all([
      realpath(root).catch(() => undefined),
      (this.backend.checkIdentity
        ? this.backend.checkIdentity(root, entry.ledger, options)
        : this.backend.readIdentity(root, options)
      ).catch(() => null),
    ]);
    if (canonical !== root || identity?.project_id !== project_id) {
      const problem = `project "${key}" failed its identity check: ${root} no longer holds project ${project_id}`;
      if (!this.#failing.has(key)) {
        this.#failing.add(key);
        this.log?.(
          `${problem} (${canonical === undefined ? "the directory is gone" : canonical !== root ? `it now resolves to ${canonical}` : identity === null ? "no ledger identity could be read there" : `it holds project ${identity.project_id}`}); its calls are refused until it does again: put the project back, or fix the registry and restart`,
        );
      }
      throw new AwrToolError(
        "RuleViolation",
        `${problem}. The operator must fix the registry or the directory and restart the service.`,
        { project: key },
      );
    }
    if (this.#failing.delete(key)) {
      this.log?.(`project "${key}" passes its identity check again: its calls are served`);
    }
    return entry;
  }

  async close(): Promise<void> {
    const entries = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(entries.map((entry) => entry.ledger.close()));
  }
}
