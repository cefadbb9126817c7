import { isLedgerError, LedgerError } from "@awr/awr-ledger";
import { assertNoSecret, findSecretInValue } from "@awr/awr-ledger/secrets";
import { envReference, SYNTHETIC_VALUE as V } from "@awr/ledger-fixtures";
import { describe, expect, it } from "vitest";

const OPENAI_SHAPED = "sk-" + "proj-" + "a".repeat(40);

describe("findSecretInValue", () => {
  it.each([
    [{ password: 1234 }, "labelled_value", "$.password"],
    [{ private_prompt: ["anything"] }, "private_prompt", "$.private_prompt"],
    [{ environment: { HOME: "/fixture" } }, "env_block", "$.environment"],
    [{ env: ["HOME=/fixture"] }, "env_block", "$.env"],
    [{ ｐａｓｓｗｏｒｄ: V }, "labelled_value", '$["ｐａｓｓｗｏｒｄ"]'],
    [{ apiKey: V }, "labelled_value", "$.apiKey"],
    [{ "x-api-key": V }, "labelled_value", '$["x-api-key"]'],
    [{ githubToken: V }, "labelled_value", "$.githubToken"],
    [{ token: true }, "labelled_value", "$.token"],
    [{ 密码: V }, "labelled_value", '$["密码"]'],
    [{ token: { type: "string", default: V } }, "labelled_value", "$.token"],
    [{ token: { type: "string", enum: [V] } }, "labelled_value", "$.token"],
    [{ token: '{"type":"string"}' }, "labelled_value", "$.token"],
    [{ a: [{ b: { client_secret: V } }] }, "labelled_value", "$.a[0].b.client_secret"],
    [{ summary: "ok", payload: { body: `password: ${V}` } }, "labelled_value", "$.payload.body"],
    [[`export HOME=${V}`], "env_assignment", "$[0]"],
  ])("%j is %s at %s", (value, category, path) => {
    const found = findSecretInValue(value);
    expect(found).toMatchObject({ category, path, in: "value" });
    expect(JSON.stringify(found)).not.toContain(V);
  });

  it("reports a secret held in a key at the object, withholding the key", () => {
    const found = findSecretInValue({ payload: { [OPENAI_SHAPED]: 1 } });
    expect(found).toEqual({ category: "openai_key", path: "$.payload", in: "key" });
    // A later finding below a key that is itself suspicious never names that key either.
    const long = "k".repeat(80);
    expect(findSecretInValue({ [long]: { password: V } })?.path).toBe("$.*.password");
  });

  it("gives the line and column inside a multi-line string", () => {
    expect(findSecretInValue({ digest: `line one\n  token: ${V}` }, "input")).toEqual({
      category: "labelled_value",
      path: "input.digest",
      in: "value",
      line: 2,
      column: 3,
    });
  });

  it.each([
    { password: null },
    { password: "" },
    { token: "[redacted]" },
    { env: {} },
    { env: [] },
    {
      pending_secret_conditions: 16,
      token_budget: 5000,
      max_tokens: 100,
      tokens_used: 5,
      environment: "candidate",
      api_key: envReference("EXAMPLE_API_KEY"),
    },
    { token: { type: "string" } },
    {
      type: "object",
      properties: { password: { type: "string", format: "password" } },
      required: ["password"],
    },
    { authorization: { type: "http", scheme: "bearer" } },
    { token: { type: "string", default: "[redacted]" } },
    { when: new Date(0), count: 3n, flag: false, nothing: undefined },
  ])("passes clean value %#", (value) => {
    expect(findSecretInValue(value)).toBeUndefined();
    expect(() => assertNoSecret(value)).not.toThrow();
  });

  it("refuses input nested deeper than 64 levels, or cyclic, with InvalidInput", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 70; i++) deep = { next: deep };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [deep, cyclic]) {
      let error: unknown;
      try {
        findSecretInValue(value);
      } catch (e) {
        error = e;
      }
      expect(isLedgerError(error, "InvalidInput")).toBe(true);
      expect((error as LedgerError).message).toMatch(/nests deeper than 64 levels; flatten it$/);
    }
  });

  it("refuses a value with more than 200000 nodes with InvalidInput", () => {
    const wide = Array.from({ length: 200_001 }, () => 0);
    expect(() => findSecretInValue(wide)).toThrow(
      expect.objectContaining({
        code: "InvalidInput",
        message: "$ holds more than 200000 values; send less per call",
        details: { path: "$", limit: 200_000 },
      }),
    );
  });
});

describe("assertNoSecret", () => {
  it("throws one fixed RuleViolation naming the input, the category and the path", () => {
    let error: unknown;
    try {
      assertNoSecret({ open_loops: ["fine", `password: ${V}`] }, "the checkpoint");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).toJSON()).toEqual({
      code: "RuleViolation",
      message: "the checkpoint contains a credential; remove it and pass a reference",
      details: {
        policy_version: 3,
        category: "labelled_value",
        path: "$.open_loops[1]",
        line: 1,
      },
    });
  });

  it("checks a bare string with its line", () => {
    expect(() => assertNoSecret(`ok\nok\nexport HOME=${V}`)).toThrow(
      expect.objectContaining({
        code: "RuleViolation",
        details: { policy_version: 3, category: "env_assignment", line: 3 },
      }),
    );
  });
});
