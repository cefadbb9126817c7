import type { AdapterContext, AdapterResult, SourceIssue } from "./types.js";
import { readWorkstreamBlock, type WorkstreamDeclaration } from "./workstream-format.js";
import { readYamlLedger } from "./yaml-ledger-v1.js";

/**
 * yaml-workstream-ledger-v1: a yaml-ledger-v1 ledger (the same items, lists or maps, field_map
 * and status_map) that also declares its workstreams (`workstreams:`, see workstream-format.ts)
 * and names the owner of every work item (`workstream: <external_key>`). The declaration and
 * the ownership go with the result; the reindex checks them against what was recorded before
 * (workstream-catalog-plan.ts). A ledger without a usable declaration contributes nothing.
 */
export function yamlWorkstreamLedgerV1(text: string, context: AdapterContext): AdapterResult {
  const { result, data, lineAt } = readYamlLedger(text, context);
  if (data === undefined) return result;
  const report = (path: (string | number)[], message: string, code?: SourceIssue["code"]) =>
    result.issues.push({
      path: context.path,
      line: lineAt(path) ?? lineAt(path.slice(0, -1)) ?? lineAt(["workstreams"]),
      severity: "error",
      message,
      ...(code === undefined ? {} : { code }),
    });
  if (data["workstreams"] === undefined) {
    report(
      [],
      "a yaml-workstream-ledger-v1 ledger must declare workstreams: {version: 1, definitions: [...]}; add the block, or use adapter yaml-ledger-v1",
    );
    return result;
  }
  const block = readWorkstreamBlock(data["workstreams"], report);
  if (block === undefined) return result;
  block.definitions.forEach((definition, i) => {
    definition.line = lineAt(["workstreams", "definitions", i]) ?? 1;
  });
  const byKey = new Map(block.definitions.map((d) => [d.external_key, d.id]));
  const ownership: WorkstreamDeclaration["ownership"] = [];
  for (const entity of result.entities) {
    if (entity.kind !== "work") continue;
    const extra = entity.attributes["extra"] as Record<string, unknown> | undefined;
    const owner = extra?.["workstream"];
    const id = typeof owner === "string" ? byKey.get(owner) : undefined;
    if (id === undefined) {
      result.issues.push({
        path: context.path,
        line: entity.line_start,
        severity: "error",
        message:
          owner === undefined
            ? `work item ${entity.key} names no workstream; add workstream: <external_key of a definition>`
            : `work item ${entity.key}: workstream ${JSON.stringify(owner)} is not the external_key of a definition (${[...byKey.keys()].join(", ")})`,
      });
      continue;
    }
    ownership.push({ work: entity.key, workstream_id: id });
  }
  result.workstreams = { ...block, ownership };
  return result;
}
