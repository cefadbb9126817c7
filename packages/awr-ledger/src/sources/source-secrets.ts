import { isLedgerError } from "../errors.js";
import { findSecret, findSecretInValue, findSecretsInSource } from "../secrets/index.js";
import type { AdapterResult, SourceIssue } from "./adapters/index.js";

/**
 * The secret policy at index time (docs/design/secret-boundaries.md, section 1). A source that
 * holds a credential is not projected: each finding becomes an error issue with code
 * `RuleViolation` naming the file, the line and the category, never the value, and the reindex
 * keeps that source's previous projection (see reindex-plan.ts). The file is never rewritten.
 */

/** True when an issue is a secret finding (the reindex holds such a source back). */
export function isSecretIssue(issue: SourceIssue): boolean {
  return issue.code === "RuleViolation";
}

function secretIssue(path: string, line: number | null, category: string): SourceIssue {
  return {
    path,
    line,
    severity: "error",
    code: "RuleViolation",
    message: `holds a credential (${category}); remove it from the file, keep only a reference, and reindex`,
  };
}

/** The lines of the source text that hold a credential, as issues (empty when clean). */
export function scanSourceText(path: string, text: string): SourceIssue[] {
  return findSecretsInSource(text).map((f) => secretIssue(path, f.line, f.category));
}

/**
 * The parsed fields a text scan cannot see as written (YAML escapes a parser decoded, key
 * names): the first entity holding a credential, at its first line, then what the source
 * declares beside its entities.
 */
export function scanParsed(path: string, result: AdapterResult): SourceIssue[] {
  const check = (value: unknown, line: number | null): SourceIssue | undefined => {
    try {
      const found = findSecretInValue(value);
      return found === undefined ? undefined : secretIssue(path, line, found.category);
    } catch (error) {
      if (!isLedgerError(error)) throw error;
      return {
        ...secretIssue(path, line, "unchecked"),
        message: "is nested too deeply to be checked for credentials; flatten it and reindex",
      };
    }
  };
  for (const entity of result.entities) {
    const issue = check(entity, entity.line_start);
    if (issue !== undefined) return [issue];
  }
  const rest = check(
    { dependencies: result.dependencies, note: result.note, workstreams: result.workstreams },
    null,
  );
  return rest === undefined ? [] : [rest];
}

/**
 * An adapter's diagnostic with its text withheld when it quotes a credential (a parser error
 * message may repeat the line it could not read).
 */
export function withheldDiagnostic(issue: SourceIssue): SourceIssue {
  if (findSecret(issue.message) === undefined) return issue;
  const where = issue.line === null ? "it" : `line ${issue.line}`;
  return {
    ...issue,
    message: `${where} could not be parsed; its text is withheld because it holds a credential`,
  };
}
