import {
  assertNoSecret,
  findSecret,
  findSecretInValue,
  findSecretsInSource,
} from "@awr/awr-ledger/secrets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** 12..40 letters and digits with at least one of each: never a substring of a finding. */
const opaqueValue = fc
  .stringMatching(/^[A-Za-z0-9]{12,40}$/)
  .filter((v) => /[0-9]/.test(v) && /[A-Za-z]/.test(v));

const label = fc.constantFrom(
  "password",
  "api_key",
  "API_KEY",
  "access token",
  "client_secret",
  "Authorization",
  "x-refresh-token",
  "private_prompt",
  "密码",
  "令牌",
);
const separator = fc.constantFrom(": ", "=", " = ", '": "', "：");

/** Secrets of every shape, with the part that must never be echoed. */
const secret = fc.oneof(
  fc.tuple(label, separator, opaqueValue).map(([l, s, v]) => ({ text: `${l}${s}${v}`, value: v })),
  opaqueValue.map((v) => ({ text: `sk-${v}${v}`, value: v })),
  opaqueValue.map((v) => ({ text: `ghp_${v}${v}`, value: v })),
  opaqueValue.map((v) => ({ text: `Bearer ${v}${v}${v}`, value: v })),
  fc
    .tuple(opaqueValue, opaqueValue)
    .map(([u, p]) => ({ text: `Basic ${Buffer.from(`${u}:${p}`).toString("base64")}`, value: p })),
  fc.tuple(opaqueValue, opaqueValue).map(([u, p]) => ({
    text: `https://${u}:${p}@example.invalid/`,
    value: p,
  })),
  fc.tuple(fc.stringMatching(/^[A-Z][A-Z0-9_]{2,20}$/), opaqueValue).map(([n, v]) => ({
    text: `\nexport ${n}=${v}\n`,
    value: v,
  })),
);

const WORDS = [
  "the",
  "token",
  "budget",
  "password",
  "rotation",
  "policy",
  "bearer",
  "basic",
  "authentication",
  "secret",
  "management",
  "environment",
  "variables",
  "api",
  "key",
  "handling",
  "private",
  "prompt",
  "review",
  "密码",
  "令牌",
  "保护",
];
// One line: a line that is only "private prompt" followed by more text is a private-prompt block.
const prose = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(" ", ", ", ". ", "; ")), {
    maxLength: 30,
  })
  .map((parts) => parts.map(([w, s]) => w + s).join(""));

describe("secret findings (properties)", () => {
  it("find every generated secret in surrounding prose and never carry its value", () => {
    fc.assert(
      fc.property(prose, secret, prose, (before, { text, value }, after) => {
        const input = `${before} ${text} ${after}`;
        const found = findSecret(input);
        expect(found).toBeDefined();
        const source = findSecretsInSource(input);
        const inValue = findSecretInValue({ notes: [input] });
        let refusal: unknown;
        try {
          assertNoSecret({ summary: input });
        } catch (error) {
          refusal = error;
        }
        for (const output of [found, source, inValue, refusal]) {
          expect(output).toBeDefined();
          expect(JSON.stringify(output)).not.toContain(value);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("are not fooled by invisible or full-width characters inside a label", () => {
    const invisible = fc.constantFrom("\u200b", "\u200d", "\u2060", "\ufeff", "\u202e", "\u00ad");
    fc.assert(
      fc.property(fc.nat(7), invisible, opaqueValue, fc.boolean(), (at, mark, value, wide) => {
        const word = "password";
        const label = wide
          ? [...word].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join("")
          : word;
        const text = `${label.slice(0, at + 1)}${mark}${label.slice(at + 1)}: ${value}`;
        expect(findSecret(text)?.category).toBe("labelled_value");
      }),
      { numRuns: 200 },
    );
  });

  it("are found in every case form a rule matches, whatever its quick pre-check", () => {
    // Each rule first tests a literal hint with its own case flags; a case variant the rule
    // matches (upper case, or U+017F, which folds to s) must pass the hint too.
    const token = "0123456789abcdefghij0123";
    for (const [text, category] of [
      [`key SK-${token}`, "openai_key"],
      [`GHP_${token}`, "github_token"],
      [`XOXB-${token}`, "slack_token"],
      [`EYJ${token.slice(0, 10)}.${token.slice(0, 10)}.${token.slice(0, 10)}`, "jwt"],
      [`PASSWORD: ${token}`, "labelled_value"],
      [`Pa\u017F\u017Fword = ${token}`, "labelled_value"],
    ] as const) {
      expect(findSecret(text)?.category, text).toBe(category);
    }
  });

  it("leave ordinary discussion built from security words alone", () => {
    fc.assert(
      fc.property(prose, (text) => {
        expect(findSecret(text)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });
});
