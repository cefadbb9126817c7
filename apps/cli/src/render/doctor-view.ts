import { CliError } from "../cli-error.js";
import type { Colors } from "../output/style.js";
import { FIX_SOURCE_STEP } from "../report-error.js";
import { spentLine } from "./views.js";

type Result = Record<string, unknown>;
type Finding = {
  code: string;
  severity: string;
  object_kind: string;
  object_id: string;
  message: string;
  repair: Record<string, string> | null;
};

/** The CLI command that applies a suggested repair (`expire_claim` → `expire-claim CLAIM`). */
function repairCommand(repair: Record<string, string>): string {
  const { kind = "", ...ids } = repair;
  const id = Object.values(ids)[0] ?? "ID";
  return `awr doctor repair ${kind.replace(/_/g, "-")} ${id} --reason …`;
}

function severityText(severity: string, colors: Colors): string {
  const label = `[${severity}]`.padEnd(9);
  if (severity === "error") return colors.red(label);
  if (severity === "warning") return colors.yellow(label);
  return colors.dim(label);
}

const isFullReport = (result: Result) => Array.isArray(result["findings"]);

/** `awr doctor`: the summary, one line per finding with its repair candidate, and the promise. */
export function doctorLines(result: Result, colors: Colors): string[] {
  const yes = (value: unknown) => (value === true ? colors.green("yes") : colors.red("no"));
  if (!isFullReport(result)) {
    const issues = (result["schema_issues"] as string[] | undefined) ?? [];
    return [
      "Database only",
      `intact: ${yes(result["ok"])}   schema: ${String(result["schema_version"])}   integrity: ${(
        result["integrity"] as string[]
      ).join(", ")}   foreign-key violations: ${String(result["foreign_key_violations"])}`,
      ...issues.map((issue) => `  ${colors.red("schema")}: ${issue}`),
    ];
  }
  const findings = result["findings"] as Finding[];
  const revision = result["project_revision"] ?? "unavailable";
  const lines = [
    "Doctor (read only)",
    `database intact: ${yes(result["database_ok"])}   project revision: ${String(revision)}   sources checked: ${String(result["sources_checked"])}`,
  ];
  const width = Math.max(0, ...findings.map((f) => f.code.length));
  for (const f of findings) {
    lines.push(
      `${severityText(f.severity, colors)} ${f.code.padEnd(width)}  ${f.object_kind}:${f.object_id} — ${f.message}`,
    );
    if (f.repair !== null)
      lines.push(`  ${colors.cyan("repair candidate")}: ${repairCommand(f.repair)}`);
  }
  if (findings.length === 0) lines.push(colors.green("no findings"));
  lines.push(
    "No repair was applied. Select one named repair with --expected-revision and --reason when appropriate.",
  );
  return lines;
}

/**
 * The exit (docs/compatibility/storage.md): a report that is not ok fails with Storage after it is
 * printed (the report on stdout, the error on stderr). When every error it found is a source's (a
 * file that cannot be indexed as it is, or is gone), the fix is the file and a reindex, not the
 * database: the next step says so instead of Storage's (a repair, or a backup).
 */
export function doctorFailure(result: Result): CliError | undefined {
  if (result["ok"] !== false) return undefined;
  if (!isFullReport(result)) {
    return new CliError("Storage", "doctor reported integrity or schema problems");
  }
  const errors = (result["findings"] as Finding[]).filter((f) => f.severity === "error");
  const sourcesOnly =
    result["database_ok"] !== false &&
    errors.length > 0 &&
    errors.every((f) => f.code.startsWith("source_"));
  return new CliError(
    "Storage",
    "doctor found unresolved problems; inspect findings (no repairs applied)",
    sourcesOnly ? { next: FIX_SOURCE_STEP } : {},
  );
}

/** `awr doctor repair …`: what was applied, its receipt, and what it spent. */
export function repairLines(result: Result, colors: Colors, checkedAt: number): string[] {
  const receipt = result["receipt"] as { action: { kind: string }; event: Result };
  return [
    `applied repair ${receipt.action.kind} at revision ${String(result["project_revision"])}; receipt ${String(receipt.event["event_type"])} ${String(receipt.event["id"])}`,
    "run awr doctor to inspect the remaining findings",
    `  ${colors.dim(spentLine(result, checkedAt))}`,
  ];
}
