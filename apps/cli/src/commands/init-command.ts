import { resolve } from "node:path";
import type { CommandContext } from "../context.js";
import { formatTable } from "../output/table.js";
import { findOnPath, hostConfigLines } from "../render/host-configs.js";
import { localOnly } from "./local-only.js";

/**
 * `awr init`: in `--project DIR` (default the working directory; init does not look upward,
 * it acts where it is told). Without --accept nothing is written.
 */
export async function runInit(
  context: CommandContext,
  options: { manifest?: string; accept?: boolean },
): Promise<void> {
  localOnly(context, "init");
  const root = context.projectStart();
  const { initProject } = await import("@awr/awr-ledger");
  const result = await initProject({
    root,
    manifest:
      // Relative to --project (the project it describes), not to the process's working directory.
      options.manifest === undefined ? undefined : resolve(root, options.manifest),
    accept: options.accept === true,
    env: context.io.env as NodeJS.ProcessEnv,
    signal: context.signal,
  });
  const c = context.colors;
  context.print(result, () => {
    const lines: string[] = [];
    if (result.mode === "preview") {
      lines.push(
        `${c.bold("Preview")} of ${result.root} ${c.dim("(nothing was written)")}`,
        result.project_id
          ? `project_id ${result.project_id} (already initialised, revision ${result.project_revision})`
          : "not initialised yet",
      );
    } else {
      lines.push(
        `${c.green("✓")} ${result.already_initialised ? "Confirmed" : "Initialised"} ${result.root}`,
        `project_id ${c.bold(result.project_id ?? "?")}  ${c.dim(`revision ${result.project_revision}`)}`,
      );
      if (result.created.length > 0) lines.push(`created: ${result.created.join(", ")}`);
    }
    lines.push(
      `manifest: ${result.manifest_origin === "discovered" ? "discovered from the files present" : result.manifest_origin === "file" ? "from --manifest" : ".awr/project.toml"}`,
      "",
    );
    lines.push(
      ...formatTable(
        result.sources,
        [
          { header: "domain", value: (s) => s.domain },
          { header: "role", value: (s) => s.role },
          { header: "path", value: (s) => s.path, shrink: true },
          { header: "adapter", value: (s) => s.adapter },
          {
            header: "entities",
            value: (s) => (s.exists ? String(s.entity_count) : "missing"),
            style: (t, s) => (s.exists ? t : c.yellow(t)),
          },
        ],
        { header: c.dim, width: c.width },
      ),
    );
    for (const issue of result.issues) {
      const where = `${issue.path}${issue.line === null ? "" : `:${issue.line}`}`;
      lines.push(
        `${issue.severity === "error" ? c.red("error") : c.yellow("warning")} ${where}: ${issue.message}`,
      );
    }
    if (result.mode === "preview") {
      const accept = `awr init --accept${options.manifest ? ` --manifest ${options.manifest}` : ""}`;
      // A preview with an error would only be refused: say what to do first, not to accept it.
      lines.push(
        "",
        result.issues.some((issue) => issue.severity === "error")
          ? `\`${accept}\` would refuse this mapping: fix the errors above, then preview it again with \`awr init\`.`
          : `Run \`${accept}\` to create .awr/ with this mapping.`,
      );
    }
    if (result.mode !== "preview" && !result.issues.some((issue) => issue.severity === "error")) {
      lines.push(
        "",
        ...hostConfigLines(result.root, findOnPath("awr-mcp", context.io.env["PATH"])),
      );
    }
    return lines;
  });
}
