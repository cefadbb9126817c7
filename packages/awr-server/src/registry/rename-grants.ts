import { chmod, readFile, realpath, rename, stat, writeFile } from "node:fs/promises";
import { parse } from "smol-toml";
import { RegistryError } from "./check-registry.js";

/** One workstream id to replace in the grants of one project (e.g. after `awr workstream migrate`). */
export interface GrantRename {
  earlier_id: string;
  workstream_id: string;
}

const HEADER = /^[ \t]*\[\[?[^\]\n]*\]\]?[^\n]*$/gm;
const GRANT_HEADER = /^[ \t]*\[\[[ \t]*clients[ \t]*\.[ \t]*workstreams[ \t]*\]\]/;

function value(
  block: string,
  field: string,
): { text: string; at: number; length: number } | undefined {
  const match = new RegExp(`^([ \\t]*${field}[ \\t]*=[ \\t]*)(["'])([^"'\\n]*)\\2`, "m").exec(
    block,
  );
  if (match === null) return undefined;
  return {
    text: match[3] as string,
    at: match.index + (match[1] as string).length + 1,
    length: (match[3] as string).length,
  };
}

/**
 * Rewrites, in place, the `workstream_id` of every `[[clients.workstreams]]` grant on the
 * registry project whose root is `root` from an earlier id to its replacement; every other
 * byte of the file stays as it was. Returns how many grants changed. Refused (nothing
 * written) when the file is not TOML or no registry project has that root.
 */
export async function renameWorkstreamGrants(
  file: string,
  root: string,
  renames: readonly GrantRename[],
): Promise<number> {
  const text = await readFile(file, "utf8");
  let doc: { projects?: { key?: unknown; root?: unknown }[] };
  try {
    doc = parse(text) as typeof doc;
  } catch (error) {
    throw new RegistryError(file, [`not valid TOML: ${(error as Error).message.split("\n")[0]}`]);
  }
  const canonical = await realpath(root);
  const keys = new Set<string>();
  for (const project of doc.projects ?? []) {
    if (typeof project.root !== "string" || typeof project.key !== "string") continue;
    const real = await realpath(project.root).catch(() => project.root);
    if (real === canonical) keys.add(project.key);
  }
  if (keys.size === 0) {
    throw new RegistryError(file, [
      `no [[projects]] entry has the root ${canonical}; nothing was changed`,
    ]);
  }
  const byEarlier = new Map(renames.map((r) => [r.earlier_id, r.workstream_id]));
  const headers = [...text.matchAll(HEADER)].map((m) => m.index);
  let out = "";
  let changed = 0;
  let from = 0;
  for (const [i, start] of headers.entries()) {
    const end = headers[i + 1] ?? text.length;
    let block = text.slice(start, end);
    const project = value(block, "project");
    const id = value(block, "workstream_id");
    const next = id === undefined ? undefined : byEarlier.get(id.text);
    if (GRANT_HEADER.test(block) && project !== undefined && keys.has(project.text) && id && next) {
      block = block.slice(0, id.at) + next + block.slice(id.at + id.length);
      changed++;
    }
    out += text.slice(from, start) + block;
    from = end;
  }
  out += text.slice(from);
  if (changed > 0) {
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, out);
    await chmod(temp, (await stat(file)).mode & 0o7777);
    await rename(temp, file);
  }
  return changed;
}
