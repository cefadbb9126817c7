import { cp, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "@awr/cli";

/** A collecting output stream; `isTTY` false like a pipe, so output is never coloured. */
export class Capture {
  text = "";
  readonly isTTY: boolean;
  constructor(isTTY = false) {
    this.isTTY = isTTY;
  }
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON document. */
  json<T = Record<string, unknown>>(): T;
  /** stderr parsed as the `{code, message, details?}` error document. */
  error(): { code: string; message: string; details?: Record<string, unknown> };
}

export interface CliCallOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Make stdout look like a terminal (colour allowed). */
  tty?: boolean;
}

/** Runs `awr` in-process from sources, exactly as the binary would with these words. */
export async function awr(argv: string[], options: CliCallOptions = {}): Promise<CliRun> {
  const stdout = new Capture(options.tty === true);
  const stderr = new Capture();
  const code = await run(argv, {
    stdout,
    stderr,
    env: { PATH: process.env["PATH"], ...options.env },
    cwd: options.cwd ?? tmpdir(),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return {
    code,
    stdout: stdout.text,
    stderr: stderr.text,
    json: <T>() => JSON.parse(stdout.text) as T,
    error: () => JSON.parse(stderr.text.trim().split("\n").at(-1) ?? "{}"),
  };
}

export const DEMO_PROJECT = fileURLToPath(
  new URL("../../../../examples/demo-project", import.meta.url),
);

const temps: string[] = [];

export async function tempDir(prefix = "awr-cli-"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

export async function removeTemps(): Promise<void> {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A copy of examples/demo-project, optionally initialised with `awr init --accept`. */
export async function demoProject(options: { init?: boolean } = {}): Promise<string> {
  const root = join(await tempDir(), "bookshop");
  await cp(DEMO_PROJECT, root, { recursive: true });
  if (options.init !== false) {
    const result = await awr(["--project", root, "init", "--accept"]);
    if (result.code !== 0) throw new Error(`init failed: ${result.stderr}`);
  }
  return root;
}

/** One primary manifest source: its domain, project-relative path and adapter. */
export type ManifestSource = readonly [domain: string, path: string, adapter: string];

/** The text of a `.awr/project.toml` naming the project and its primary sources, in order. */
export function manifestText(
  name: string,
  externalKey: string,
  sources: readonly ManifestSource[],
): string {
  const tables = sources.map(
    ([domain, path, adapter]) =>
      `[[sources]]\ndomain = "${domain}"\nrole = "primary"\npath = "${path}"\nadapter = "${adapter}"\n`,
  );
  return [`[project]\nname = "${name}"\nexternal_key = "${externalKey}"\n`, ...tables].join("\n");
}
