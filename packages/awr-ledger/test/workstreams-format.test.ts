import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SOURCE_ADAPTERS } from "@awr/awr-ledger/sources";
import { workstreamIdOf } from "@awr/awr-ledger/workstreams";
import { describe, expect, it } from "vitest";
import { FIXTURES } from "./helpers/projects.js";

const context = { path: "work.yaml", domain: "ledger", options: {} };
const scoped = (text: string) => SOURCE_ADAPTERS["yaml-workstream-ledger-v1"](text, context);
const plain = (text: string) => SOURCE_ADAPTERS["yaml-ledger-v1"](text, context);
const errors = (text: string) =>
  scoped(text)
    .issues.filter((i) => i.severity === "error")
    .map((i) => ({ line: i.line, message: i.message, ...(i.code ? { code: i.code } : {}) }));

const FIXTURE = readFileSync(join(FIXTURES, "workstreams", "work.yaml"), "utf8");
const ID = "01HZX3W5J8K9M2N4P6Q7R8S9T0";

/** A one-stream ledger with `definition` (YAML lines of the one definition) and one item. */
function ledger(definition: string[], item = ["  - id: W-1", "    workstream: web"]): string {
  return [
    "workstreams:",
    "  version: 1",
    "  definitions:",
    ...definition.map((line, i) => (i === 0 ? `    - ${line}` : `      ${line}`)),
    "work_items:",
    ...item,
  ].join("\n");
}
const WEB = [
  `id: ${ID}`,
  "external_key: web",
  "title: Web",
  "state: active",
  "authority_version: 1",
  "goal_keys: []",
  "acceptance_contracts: []",
];
const replace = (field: string, line: string | null) =>
  WEB.flatMap((l) => (l.startsWith(`${field}:`) ? (line === null ? [] : [line]) : [l]));

describe("yaml-workstream-ledger-v1 (the original's workstream ledger)", () => {
  it("reads the definitions and every item's owner along with the ordinary ledger items", () => {
    const result = scoped(FIXTURE);
    expect(result.issues).toEqual([]);
    expect(result.entities.map((e) => `${e.kind}:${e.key}`)).toEqual([
      "goal:shop-online",
      "goal:take-payments",
      "milestone:launch",
      "work:SHOP-1",
      "work:SHOP-2",
      "work:PAY-1",
    ]);
    expect(result.workstreams).toEqual({
      version: 1,
      legacy_default: null,
      definitions: [
        {
          id: ID,
          external_key: "storefront",
          title: "Storefront",
          state: "active",
          authority_version: 1,
          goal_keys: ["shop-online"],
          acceptance_contracts: ["contracts/storefront.json"],
          line: 5,
        },
        expect.objectContaining({ external_key: "payments", authority_version: 3, line: 12 }),
      ],
      ownership: [
        { work: "SHOP-1", workstream_id: ID },
        { work: "SHOP-2", workstream_id: ID },
        { work: "PAY-1", workstream_id: "01HZX3W5J8K9M2N4P6Q7R8S9T1" },
      ],
    });
  });

  it("reads items written as a map keyed by the external key, and a legacy_default", () => {
    const text = ledger(WEB, ["  W-1: {title: First, status: ready, workstream: web}"]).replace(
      "  version: 1",
      `  version: 1\n  legacy_default: ${ID.toLowerCase()}`,
    );
    const result = scoped(text);
    expect(result.issues).toEqual([]);
    expect(result.workstreams?.legacy_default).toBe(ID);
    expect(result.workstreams?.ownership).toEqual([{ work: "W-1", workstream_id: ID }]);
  });

  it("accepts only non-nil ULIDs as workstream ids", () => {
    expect(workstreamIdOf(ID.toLowerCase())).toBe(ID);
    for (const bad of [
      "0".repeat(26),
      "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
      "01HZX3W5J8K9M2N4P6Q7R8S9TI",
      "web",
      7,
    ]) {
      expect(workstreamIdOf(bad)).toBeUndefined();
    }
    expect(errors(ledger(replace("id", "id: 00000000000000000000000000")))).toEqual([
      {
        line: 4,
        message:
          "workstreams.definitions[0].id must be a ULID (26 Crockford base-32 characters, not all zeros)",
      },
    ]);
  });

  it("refuses a bad key, title, state, version or reference list, each at its line", () => {
    const text = ledger([
      `id: ${ID}`,
      "external_key: -web",
      'title: " Web"',
      "state: done",
      "authority_version: 0",
      "goal_keys: [a, a]",
      "acceptance_contracts: x",
    ]);
    expect(errors(text).map((e) => [e.line, e.message.replace(/ .*/, "")])).toEqual([
      [5, "workstreams.definitions[0].external_key"],
      [6, "workstreams.definitions[0].title"],
      [7, "workstreams.definitions[0].state"],
      [8, "workstreams.definitions[0].authority_version"],
      [9, "workstreams.definitions[0].goal_keys"],
      [10, "workstreams.definitions[0].acceptance_contracts"],
    ]);
  });

  it("refuses a missing or unknown field of a definition", () => {
    expect(errors(ledger([...replace("goal_keys", null), "owner: me"]))).toEqual([
      {
        line: 10,
        message:
          "workstreams.definitions[0].owner is not a field of a definition (fields: id, external_key, title, state, authority_version, goal_keys, acceptance_contracts)",
      },
      { line: 4, message: "workstreams.definitions[0].goal_keys is required" },
    ]);
  });

  it("needs at least one definition, and ids and keys declared once", () => {
    const empty = "workstreams:\n  version: 1\n  definitions: []\nwork_items: []\n";
    expect(errors(empty)).toEqual([
      {
        line: 3,
        message: "workstreams.definitions must list at least one workstream definition",
      },
    ]);
    const twice = ledger([...WEB]).replace(
      "work_items:",
      `${WEB.map((l, i) => (i === 0 ? `    - ${l}` : `      ${l}`)).join("\n")}\nwork_items:`,
    );
    expect(errors(twice).map((e) => e.message)).toEqual([
      `workstreams.definitions[1]: id ${ID} is declared twice`,
      "workstreams.definitions[1]: external_key web is declared twice",
    ]);
  });

  it("answers an unknown workstreams version as Unsupported", () => {
    expect(errors(ledger(WEB).replace("version: 1", "version: 2"))).toEqual([
      {
        line: 2,
        code: "Unsupported",
        message: "workstreams.version 2 is not supported; this build reads version 1",
      },
    ]);
  });

  it("needs every work item to name a declared workstream", () => {
    const text = ledger(WEB, ["  - id: W-1", "  - id: W-2", "    workstream: api"]);
    expect(errors(text)).toEqual([
      {
        line: 12,
        message:
          "work item W-1 names no workstream; add workstream: <external_key of a definition>",
      },
      {
        line: 13,
        message: 'work item W-2: workstream "api" is not the external_key of a definition (web)',
      },
    ]);
  });

  it("needs a workstreams block at all", () => {
    expect(errors("work_items:\n  - id: W-1\n")[0]?.message).toMatch(
      /^a yaml-workstream-ledger-v1 ledger must declare workstreams:/,
    );
  });

  it("never lets yaml-ledger-v1 drop a workstreams block: it is Unsupported there", () => {
    const issues = plain(FIXTURE).issues.filter((i) => i.severity === "error");
    expect(issues).toEqual([
      expect.objectContaining({ line: 2, code: "Unsupported", path: "work.yaml" }),
    ]);
    expect(issues[0]?.message).toContain('adapter = "yaml-workstream-ledger-v1"');
  });
});
