import { type AdapterResult, SOURCE_ADAPTERS, type SourceIssue } from "./adapters/index.js";
import { countHeadingLines } from "./adapters/markdown-sections.js";
import type { AdapterName } from "./manifest.js";
import { sourceCaps } from "./source-options.js";
import { scanParsed, scanSourceText, withheldDiagnostic } from "./source-secrets.js";
import { decodeSource, lineOfByte } from "./text-bytes.js";

/** Everything a parse needs; plain data, so it can be handed to the parse worker. */
export interface ParseJob {
  adapter: AdapterName;
  /** The recorded path, for issues (and a decision's key). */
  path: string;
  domain: string;
  options: Record<string, unknown>;
  bytes: Uint8Array;
}

const MARKDOWN_ADAPTERS = new Set(["markdown-heading-v1", "markdown-rules-v1"]);

/**
 * Decodes and parses one source file under its caps: invalid UTF-8 is read as U+FFFD with a
 * warning naming its line; a Markdown source with more headings than `max_entities` is refused
 * before it is parsed, any source projecting more entities afterwards; an adapter failure is
 * an error issue of the source, never an exception. A source holding a credential, in its text
 * or in its parsed fields, yields no entities and one RuleViolation issue per finding (file and
 * line, never the value); no diagnostic quotes one.
 */
export function parseSourceBytes(job: ParseJob): AdapterResult {
  const issue = (severity: SourceIssue["severity"], message: string, line: number | null = null) =>
    ({ path: job.path, line, severity, message }) satisfies SourceIssue;
  const refuse = (message: string): AdapterResult => ({
    entities: [],
    dependencies: [],
    issues: [issue("error", message)],
  });
  const decoded = decodeSource(job.bytes);
  const warnings: SourceIssue[] = [];
  if (decoded.invalid_at !== null) {
    warnings.push(
      issue(
        "warning",
        `not valid UTF-8 at byte ${decoded.invalid_at}; such bytes are read as U+FFFD (save the file as UTF-8)`,
        lineOfByte(job.bytes, decoded.invalid_at),
      ),
    );
  }
  const text = decoded.text.replace(/^\uFEFF/, "");
  const secrets = scanSourceText(job.path, text);
  if (secrets.length > 0) return { entities: [], dependencies: [], issues: secrets };
  const { maxEntities } = sourceCaps(job.adapter, job.options);
  if (MARKDOWN_ADAPTERS.has(job.adapter)) {
    const headings = countHeadingLines(text);
    if (headings > maxEntities) {
      return refuse(
        `has about ${headings} headings, over its cap of ${maxEntities} entities; split the file or raise max_entities in its [sources.options]`,
      );
    }
  }
  let result: AdapterResult;
  try {
    result = SOURCE_ADAPTERS[job.adapter](text, {
      path: job.path,
      domain: job.domain,
      options: job.options,
    });
  } catch (error) {
    return {
      entities: [],
      dependencies: [],
      issues: [
        withheldDiagnostic(
          issue("error", `cannot be read by ${job.adapter}: ${(error as Error).message}`),
        ),
      ],
    };
  }
  const parsedSecrets = scanParsed(job.path, result);
  if (parsedSecrets.length > 0) return { entities: [], dependencies: [], issues: parsedSecrets };
  if (result.entities.length > maxEntities) {
    return refuse(
      `defines ${result.entities.length} entities, over its cap of ${maxEntities}; split the file or raise max_entities in its [sources.options]`,
    );
  }
  const issues = [...warnings, ...result.issues.map(withheldDiagnostic)];
  return { ...result, issues };
}
