import { findSecret, findSecretsInSource } from "@awr/awr-ledger/secrets";
import { SYNTHETIC_VALUE as V } from "@awr/ledger-fixtures";
import { describe, expect, it } from "vitest";

const OPENAI_SHAPED = ["sk", "proj", "abcdefghijklmnopqrstuvwxyz0123456789ABCD"].join("-");

describe("findSecretsInSource", () => {
  it("names every line and rule of the issue's RULES.md, never the value", () => {
    const rules = [
      "# Rules",
      "",
      "## Keys {#keys severity=hard}",
      `Use OPENAI_API_KEY=${OPENAI_SHAPED} and password: hunter2hunter2`,
      "",
      "## Rotation",
      "Follow the password rotation policy; the token budget is 5000.",
      "",
    ].join("\n");
    const found = findSecretsInSource(rules);
    expect(found).toEqual([
      { line: 4, category: "labelled_value" },
      { line: 4, category: "openai_key" },
    ]);
    expect(JSON.stringify(found)).not.toMatch(/sk-proj|hunter2/);
  });

  it("reads no value past a blank line or into a heading after a label that ends its line", () => {
    const markdown = [
      "## Access",
      "Ask the platform team for a deploy token:",
      "",
      "## Next steps",
      "Rotate the secret:",
      "# not a value either",
      "API_TOKEN=",
      "",
      "# Later",
    ].join("\n");
    expect(findSecretsInSource(markdown)).toEqual([]);
    expect(findSecretsInSource(`password:\n  ${V}`)).toEqual([
      { line: 1, category: "labelled_value" },
    ]);
    expect(findSecretsInSource(`token:\r\n${V}`)).toEqual([
      { line: 1, category: "labelled_value" },
    ]);
    // A private prompt's text may follow its label after a blank line, as it does a heading.
    expect(findSecretsInSource(`Private prompt:\n\nYou are ${V}`)).toEqual([
      { line: 1, category: "private_prompt" },
    ]);
  });

  it("counts lines of the original text through CRLF, full-width and escaped characters", () => {
    const text = `a\r\n\u200b\uff41\r\nb: \\u0022x\\u0022\r\n密码：${V}\r\npassword: ${V}`;
    expect(findSecretsInSource(text)).toEqual([
      { line: 4, category: "labelled_value" },
      { line: 5, category: "labelled_value" },
    ]);
    expect(findSecret(text)).toEqual({
      category: "labelled_value",
      offset: text.indexOf("密码"),
      line: 4,
      column: 1,
    });
  });

  it("reports a multi-line match at the line where it starts", () => {
    const text = `intro\n# Private prompt\n\n${V}\n-----BEGIN PRIVATE KEY-----\n`;
    expect(findSecretsInSource(text)).toEqual([
      { line: 2, category: "private_prompt" },
      { line: 5, category: "private_key" },
    ]);
  });

  it("finds nothing in ordinary planning text", () => {
    const plan = [
      "# Plan",
      "## Authentication {#auth}",
      "Support Bearer authentication and basic authentication for the API.",
      "Keep an API key management page; review password rotation every quarter.",
      'Schema: {"token":{"type":"string"}}',
      "Run `CI=1 pnpm test` before merging.",
    ].join("\n");
    expect(findSecretsInSource(plan)).toEqual([]);
  });
});
