import { access, mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  fingerprintOf,
  parseWorkstream,
  type Workstream,
  type WorkstreamProblem,
} from "./workstream-format.js";

/**
 * Operator operations on a project's workstream ledgers. Sources: `<root>/workstreams/*.yaml`.
 * State: `<root>/.awr/workstreams/enabled.json` (the project serves workstreams and refuses
 * legacy tools) and `<root>/.awr/workstreams/index.json` (the validated snapshot reads use).
 * The index is replaced atomically (write then rename) and only when every file is valid.
 */

export const WORKSTREAM_SOURCE_DIR = "workstreams";
const STATE_DIR = join(".awr", "workstreams");

/** Reindex or enable refused: every problem, each with file and line. */
export class WorkstreamError extends Error {
  override readonly name = "WorkstreamError";
  constructor(
    message: string,
    readonly problems: readonly WorkstreamProblem[] = [],
    options?: { cause?: unknown },
  ) {
    super(
      problems.length === 0
        ? message
        : `${message}\n${problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ""}: ${p.message}`).join("\n")}`,
      options,
    );
  }
}

export interface WorkstreamIndex {
  version: 1;
  indexed_at: string;
  workstreams: Workstream[];
}

export interface WorkstreamSummary {
  workstream_id: string;
  authority_version: number;
  title: string;
  file: string;
  work_items: number;
  objects: number;
  events: number;
}

const enabledFile = (root: string) => join(root, STATE_DIR, "enabled.json");
const indexFile = (root: string) => join(root, STATE_DIR, "index.json");

export function summarize(workstream: Workstream): WorkstreamSummary {
  return {
    workstream_id: workstream.workstream_id,
    authority_version: workstream.authority_version,
    title: workstream.title,
    file: workstream.file,
    work_items: workstream.work_items.length,
    objects: workstream.objects.length,
    events: workstream.events.length,
  };
}

export async function isWorkstreamsEnabled(root: string): Promise<boolean> {
  return access(enabledFile(root)).then(
    () => true,
    () => false,
  );
}

async function sourceFiles(root: string): Promise<string[]> {
  const dir = join(root, WORKSTREAM_SOURCE_DIR);
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [] as string[];
    throw error;
  });
  return names
    .filter((name) => name.endsWith(".yaml") || name.endsWith(".yml"))
    .sort()
    .map((name) => `${WORKSTREAM_SOURCE_DIR}/${name}`);
}

/** Reads the current index, or undefined when none has been written. */
export async function readWorkstreamIndex(root: string): Promise<WorkstreamIndex | undefined> {
  try {
    return JSON.parse(await readFile(indexFile(root), "utf8")) as WorkstreamIndex;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new WorkstreamError(`cannot read ${indexFile(root)}`, [], { cause: error });
  }
}

/**
 * Parses and validates every workstream file and, only if all are valid, replaces the index.
 * A workstream_id is immutable: a file indexed before under another id is refused.
 */
export async function reindexWorkstreams(
  root: string,
  options: { signal?: AbortSignal } = {},
): Promise<WorkstreamSummary[]> {
  options.signal?.throwIfAborted();
  await assertInitialised(root);
  const previous = await readWorkstreamIndex(root);
  const problems: WorkstreamProblem[] = [];
  const workstreams: Workstream[] = [];
  const owners = new Map<string, string>();
  for (const file of await sourceFiles(root)) {
    const text = await readFile(join(root, file), { encoding: "utf8", signal: options.signal });
    const parsed = parseWorkstream(file, text);
    if (!parsed.workstream) {
      problems.push(...parsed.problems);
      continue;
    }
    const { workstream } = parsed;
    const owner = owners.get(workstream.workstream_id);
    if (owner !== undefined) {
      problems.push({
        file,
        message: `workstream_id "${workstream.workstream_id}" is already used by ${owner}`,
      });
    }
    owners.set(workstream.workstream_id, file);
    const before = previous?.workstreams.find((w) => w.file === file);
    if (before && before.workstream_id !== workstream.workstream_id) {
      problems.push({
        file,
        line: 1,
        message: `workstream_id is immutable: it was "${before.workstream_id}", now "${workstream.workstream_id}"`,
      });
    }
    workstreams.push(workstream);
  }
  if (problems.length > 0) {
    throw new WorkstreamError("workstream files are invalid; nothing was indexed", problems);
  }
  const index: WorkstreamIndex = { version: 1, indexed_at: new Date().toISOString(), workstreams };
  await mkdir(join(root, STATE_DIR), { recursive: true });
  const temp = `${indexFile(root)}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(index, null, 2)}\n`);
  await rename(temp, indexFile(root));
  return workstreams.map(summarize);
}

/** Indexes the workstreams and, if that succeeds, marks the project as serving them. */
export async function enableWorkstreams(
  root: string,
  options: { signal?: AbortSignal } = {},
): Promise<WorkstreamSummary[]> {
  const summaries = await reindexWorkstreams(root, options);
  await writeFile(
    enabledFile(root),
    `${JSON.stringify({ enabled_at: new Date().toISOString() })}\n`,
  );
  return summaries;
}

export async function listWorkstreams(
  root: string,
  options: { signal?: AbortSignal } = {},
): Promise<{ enabled: boolean; workstreams: WorkstreamSummary[] }> {
  options.signal?.throwIfAborted();
  const index = await readWorkstreamIndex(root);
  return {
    enabled: await isWorkstreamsEnabled(root),
    workstreams: index?.workstreams.map(summarize) ?? [],
  };
}

/** Files whose bytes differ from the index (changed or removed), for SourceStale. */
export async function staleWorkstreamFiles(
  root: string,
  index: WorkstreamIndex,
): Promise<string[]> {
  const current = await sourceFiles(root);
  const indexed = new Set(index.workstreams.map((w) => w.file));
  const changed = current.filter((file) => !indexed.has(file));
  for (const workstream of index.workstreams) {
    const bytes = await readFile(join(root, workstream.file)).catch(() => undefined);
    if (bytes === undefined || fingerprintOf(bytes) !== workstream.fingerprint) {
      changed.push(workstream.file);
    }
  }
  return changed.sort();
}

async function assertInitialised(root: string): Promise<void> {
  const info = await stat(join(root, ".awr")).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new WorkstreamError(`no AWR ledger in ${root}: run \`awr init --accept\` there first`);
  }
}
