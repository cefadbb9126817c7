/**
 * Import cycles inside each package's src/, at two grains: between files, and between the
 * package's units (each folder directly under src/, and each file directly in src/). Type-only
 * imports count: a type cycle still ties two modules together for every reader and refactor.
 */
import { posix } from "node:path";

export interface SourceText {
  /** Path relative to the workspace root, e.g. "packages/awr-ledger/src/read/search.ts". */
  path: string;
  text: string;
}

const SRC = /^((?:packages|apps)\/[^/]+\/src)\/(.+)$/;
const RELATIVE_IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

/** Every cycle found, one message each, naming the modules in order and how to fix it. */
export function importCycles(sources: SourceText[]): string[] {
  const files = new Set(sources.filter((s) => SRC.test(s.path)).map((s) => s.path));
  const fileEdges = new Map<string, Set<string>>();
  const unitEdges = new Map<string, Set<string>>();
  for (const { path, text } of sources) {
    if (!files.has(path)) continue;
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const target = resolveSource(path, match[1] ?? "", files);
      if (target === undefined || packageSrc(target) !== packageSrc(path)) continue;
      link(fileEdges, path, target);
      const [from, to] = [unitOf(path), unitOf(target)];
      if (from !== to) link(unitEdges, from, to);
    }
  }
  const problems: string[] = [];
  for (const cycle of stronglyConnected(unitEdges)) {
    problems.push(
      `folder cycle in ${packageSrc(cycle[0] ?? "")}: ${cycle.map(shortUnit).join(" ↔ ")} import each other; move what they share into a lower folder so imports point one way`,
    );
  }
  for (const cycle of stronglyConnected(fileEdges)) {
    problems.push(
      `file cycle: ${cycle.join(" ↔ ")} import each other (types count); move the shared declarations into a module both can import`,
    );
  }
  return problems;
}

function packageSrc(path: string): string {
  return SRC.exec(path)?.[1] ?? "";
}

/** A folder directly under src/ ("…/src/read/"), or a file directly in src/ ("…/src/ledger.ts"). */
export function unitOf(path: string): string {
  const [, src, rest = ""] = SRC.exec(path) ?? [];
  const slash = rest.indexOf("/");
  return slash < 0 ? `${src}/${rest}` : `${src}/${rest.slice(0, slash + 1)}`;
}

function shortUnit(unit: string): string {
  return unit.slice(packageSrc(unit).length + 1);
}

/** The source file a relative specifier names (`.js` written for a `.ts` file, or a folder). */
function resolveSource(from: string, specifier: string, files: Set<string>): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  return candidates.find((c) => files.has(c));
}

function link(edges: Map<string, Set<string>>, from: string, to: string): void {
  const targets = edges.get(from) ?? new Set<string>();
  targets.add(to);
  edges.set(from, targets);
}

/** Tarjan's algorithm: the components of more than one node, each sorted, in a stable order. */
function stronglyConnected(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}
