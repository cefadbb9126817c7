import { existsSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { extname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The inspector's page: the files of apps/cli/inspector/, which the build copies to
 * dist/inspector-web/ (shipped in the package). This module's source and its built form both sit
 * two directories below the package root: an installed `awr` finds the copy, a run from the
 * sources (the tests' programs) the originals.
 */
export function webDirectory(): string {
  const candidates = [
    new URL("../../dist/inspector-web/", import.meta.url),
    new URL("../../inspector/", import.meta.url),
  ].map((url) => fileURLToPath(url));
  return candidates.find((dir) => existsSync(join(dir, "index.html"))) ?? (candidates[0] as string);
}

/** The types served; a file of any other kind is not served at all. */
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

export interface StaticAnswer {
  status: number;
  type: string;
  body: Buffer | string;
}

const notFound: StaticAnswer = {
  status: 404,
  type: "text/plain; charset=utf-8",
  body: "not found",
};
const refused: StaticAnswer = { status: 403, type: "text/plain; charset=utf-8", body: "forbidden" };

/**
 * The file a request path names, inside `root` only. `rawPath` is the path as the request sent
 * it, before URL parsing removed its dot segments: a path that climbs (`..`, encoded or not),
 * holds a backslash or a NUL, or names a hidden file is refused rather than quietly resolved.
 */
export async function staticFile(root: string, rawPath: string): Promise<StaticAnswer> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return refused;
  }
  const segments = decoded.split("/").filter((s) => s !== "");
  if (
    decoded.includes("\\") ||
    decoded.includes("\0") ||
    segments.some((s) => s === ".." || s.startsWith("."))
  ) {
    return refused;
  }
  const relative = segments.length === 0 ? ["index.html"] : segments;
  const type = TYPES[extname(relative[relative.length - 1] as string).toLowerCase()];
  if (type === undefined) return notFound;
  let base: string;
  let file: string;
  try {
    base = await realpath(root);
    file = await realpath(join(base, ...relative));
  } catch {
    return notFound;
  }
  // A link inside the directory that leads out of it is refused as well.
  if (!file.startsWith(base + sep)) return refused;
  try {
    if (!(await stat(file)).isFile()) return notFound;
    return { status: 200, type, body: await readFile(file) };
  } catch {
    return notFound;
  }
}

export function sendStatic(res: ServerResponse, answer: StaticAnswer, head: boolean): void {
  const body = typeof answer.body === "string" ? Buffer.from(answer.body) : answer.body;
  res.writeHead(answer.status, { "Content-Type": answer.type, "Content-Length": body.length });
  res.end(head ? undefined : body);
}
