/**
 * Whether a rule's scope reaches a work item. Scope entries: `global` or `*` (everything),
 * `tag:NAME` (items tagged NAME), or a path glob (`*` within a segment, `**` across segments;
 * a pattern without glob characters also matches everything below it as a directory prefix).
 */
export function scopeMatches(
  scope: readonly string[],
  paths: readonly string[],
  tags: readonly string[],
): boolean {
  return scope.some((entry) => {
    if (entry === "global" || entry === "*" || entry === "**") return true;
    if (entry.startsWith("tag:")) return tags.includes(entry.slice(4));
    const pattern = globToRegExp(entry);
    return paths.some((path) => pattern.test(path.replace(/^\.\//, "")));
  });
}

function globToRegExp(glob: string): RegExp {
  const clean = glob.replace(/^\.\//, "");
  const hasGlob = /[*?]/.test(clean);
  let source = "";
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i] as string;
    if (c === "*") {
      if (clean[i + 1] === "*") {
        source += ".*";
        i++;
        if (clean[i + 1] === "/") i++;
      } else source += "[^/]*";
    } else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  const tail = hasGlob ? "" : "(?:/.*)?";
  return new RegExp(`^${source.replace(/\/$/, "")}${tail}$`);
}
