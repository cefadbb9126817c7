import { isLedgerError } from "@awr/awr-ledger";
import {
  assertNoSecret,
  findSecret,
  findSecretInValue,
  findSecretsInSource,
  SECRET_POLICY_VERSION,
} from "@awr/awr-ledger/secrets";
import { SECRET_DETECTION_CONDITIONS } from "@awr/ledger-fixtures";
import { describe, expect, it } from "vitest";

const REFUSAL = "the input contains a credential; remove it and pass a reference";

function refusal(value: unknown): unknown {
  try {
    assertNoSecret(value);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("secret detection conditions", () => {
  it("cover at least 32 conditions, positive and negative", () => {
    expect(SECRET_DETECTION_CONDITIONS.length).toBeGreaterThanOrEqual(32);
    const ids = SECRET_DETECTION_CONDITIONS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(SECRET_DETECTION_CONDITIONS.some((c) => c.expect === "clean")).toBe(true);
    expect(SECRET_DETECTION_CONDITIONS.some((c) => c.expect === "secret")).toBe(true);
  });

  describe.each(SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "secret"))(
    "$id (refused)",
    (condition) => {
      it.each(condition.cases)("$text", ({ text, value }) => {
        const found = findSecret(text);
        expect(found).toBeDefined();
        if (condition.category !== undefined) expect(found?.category).toBe(condition.category);
        // The position is consistent with the text it points into.
        const before = text.slice(0, found?.offset);
        expect(found?.line).toBe(before.split("\n").length);
        expect(found?.column).toBe(before.length - before.lastIndexOf("\n"));

        const error = refusal(text);
        expect(isLedgerError(error, "RuleViolation")).toBe(true);
        const wire = JSON.stringify(error);
        expect(JSON.parse(wire)).toMatchObject({
          message: REFUSAL,
          details: { policy_version: SECRET_POLICY_VERSION, category: found?.category },
        });

        const inValue = findSecretInValue({ body: text });
        expect(inValue).toMatchObject({ path: "$.body", in: "value" });
        expect(findSecretsInSource(text).length).toBeGreaterThan(0);

        for (const output of [found, inValue, findSecretsInSource(text), wire]) {
          expect(JSON.stringify(output)).not.toContain(value);
        }
      });
    },
  );

  describe.each(SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "clean"))(
    "$id (passes through)",
    (condition) => {
      it.each(condition.cases)("$text", ({ text }) => {
        expect(findSecret(text)).toBeUndefined();
        expect(findSecretInValue({ body: text, list: [text] })).toBeUndefined();
        expect(findSecretsInSource(text)).toEqual([]);
        expect(() => assertNoSecret(text)).not.toThrow();
      });
    },
  );
});
