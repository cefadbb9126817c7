// Figure 4: context packets at budget 5000 for every active item of the 150-item fixture: the
// tokens of the full planning sources (what an agent would read without AWR) against the
// rendered packet, and recall of the exact facts the generator says each packet must contain.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DIST, fixtureProject, fmtInt, fmtPct, load } from "./lib.mjs";

export const title = "Context packets (budget 5000)";
const SOURCES = ["GOALS.md", "PLAN.md", "RULES.md", "DECISIONS.md", "work-ledger.yaml"];

export async function run() {
  const fixture = await fixtureProject(150);
  const { openLedger, countTokens } = await load(DIST.ledger);
  const fullTokens = countTokens(
    SOURCES.map((f) => readFileSync(join(fixture.root, f), "utf8")).join("\n"),
  );
  const ledger = await openLedger({ root: fixture.root });
  const active = fixture.items.filter((i) => i.active);
  const rendered = [];
  // Bytes of each whole answer (what a host receives as structuredContent) per rendered byte.
  const answerRatios = [];
  let factsTotal = 0;
  let factsFound = 0;
  let fullRecall = 0;
  const failures = [];
  try {
    for (const item of active) {
      let answer;
      try {
        answer = await ledger.call(
          "awr_context_compile",
          { work: item.work, budget: 5000 },
          { client: "stdio" },
        );
      } catch (caught) {
        const error = /** @type {Error & { code?: string, result?: unknown }} */ (caught);
        failures.push(`${item.work}: ${error.code ?? ""} ${error.message}`);
        // An incomplete packet is ContextIncomplete carrying the whole result: measure it too.
        if (error.code !== "ContextIncomplete" || error.result === undefined) continue;
        answer = error.result;
      }
      const text = answer.work_context?.rendered_context ?? "";
      rendered.push(countTokens(text));
      answerRatios.push(
        Buffer.byteLength(JSON.stringify(answer)) / Math.max(1, Buffer.byteLength(text)),
      );
      const found = item.required_facts.filter((fact) => text.includes(fact)).length;
      factsTotal += item.required_facts.length;
      factsFound += found;
      if (found === item.required_facts.length) fullRecall++;
    }
  } finally {
    await ledger.close();
  }
  const mean = rendered.reduce((a, b) => a + b, 0) / Math.max(1, rendered.length);
  const max = Math.max(...rendered);
  const reductionMean = 1 - mean / fullTokens;
  const reductionWorst = 1 - max / fullTokens;
  const recall = factsTotal ? factsFound / factsTotal : 0;
  const ratioMean = answerRatios.reduce((a, b) => a + b, 0) / Math.max(1, answerRatios.length);
  const ratioMax = Math.max(0, ...answerRatios);
  const cmd = "pnpm bench --only context";
  return {
    rows: [
      {
        figure: `rendered tokens per packet, mean / max (${rendered.length} active items)`,
        value: `${fmtInt(mean)} / ${fmtInt(max)}`,
        baseline: `full sources ${fmtInt(fullTokens)} tokens`,
        ratio: `${(fullTokens / mean).toFixed(1)}x compression`,
        goal: "≤ 5000 (budget)",
        met: max <= 5000 && failures.length === 0,
        command: cmd,
      },
      {
        figure: "token reduction, mean (worst item)",
        value: `${fmtPct(reductionMean)} (${fmtPct(reductionWorst)})`,
        baseline: `full sources ${fmtInt(fullTokens)} tokens`,
        ratio: `${(fullTokens / max).toFixed(1)}x worst-case compression`,
        goal: "≥ 80% reduction",
        met: reductionWorst >= 0.8,
        command: cmd,
      },
      {
        figure: "exact-fact recall (generator's required facts)",
        value: `${fmtPct(recall)} (${factsFound}/${factsTotal} facts; ${fullRecall}/${active.length} items complete)`,
        baseline: "—",
        ratio: "—",
        goal: "100% recall",
        met: factsFound === factsTotal && failures.length === 0,
        command: cmd,
      },
      {
        figure: "answer bytes per rendered_context byte, mean / max",
        value: `${ratioMean.toFixed(2)} / ${ratioMax.toFixed(2)}`,
        baseline: "rendered_context alone (1.00)",
        ratio: "—",
        goal: "≤ 3.00 (max)",
        met: answerRatios.length > 0 && ratioMax <= 3,
        command: cmd,
      },
    ],
    notes: [
      "Tokens are o200k_base (the ledger's countTokens). Full sources = GOALS.md, PLAN.md, RULES.md, DECISIONS.md and " +
        "work-ledger.yaml concatenated: what an agent without AWR would read to find the same facts. " +
        "Required facts per item (from the generator): its key and title, acceptance texts, hard rules in scope, unmet required dependencies.",
      "Answer bytes: the whole awr_context_compile result as JSON (UTF-8) over its rendered_context; the rest is the packet's " +
        "metadata in the original's fields (selected_chunks, selected_entities, identity, completeness), each fact once (docs/compatibility/context-answer.md).",
      ...(failures.length
        ? [`Packets that failed to compile: ${failures.slice(0, 5).join("; ")}`]
        : []),
    ],
    profiles: [],
  };
}
