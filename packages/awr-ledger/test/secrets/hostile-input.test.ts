import { findSecret, findSecretInValue, findSecretsInSource } from "@awr/awr-ledger/secrets";
import { describe, expect, it } from "vitest";

// One mebibyte of text shaped against each rule: long runs a pattern could rescan from every
// position, candidates that almost match, definitions that never close. A quadratic rule would
// take minutes here and fail the suite's timeout; the time itself is measured by
// `pnpm bench --only secrets`, never asserted.
const MIB = 1 << 20;
const fill = (unit: string): string => unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB);

describe("the detector on 1 MiB of hostile input", () => {
  it.each([
    ["identifier run", fill("a_"), undefined],
    ["JWT starts", fill("-eyJ"), undefined],
    ["short JWT segments", fill(".eyJaaaaaaa"), undefined],
    ["URL without @", `a://b:${fill("c:")}`, undefined],
    ["bearer words", fill("bearer "), undefined],
    ["basic candidates", fill("basic AAAA "), undefined],
    ["labels with placeholders", fill("password: *** "), undefined],
    ["command prefixes", fill("AB=1 CD=2 EF=3 "), undefined],
    ["inline env labels", fill("env: x "), undefined],
    ["JSON escapes", fill("\\u0041\\n"), undefined],
    ["invisible characters", fill("p\u200b"), undefined],
    ["full-width text", fill("ｐａｓｓ"), undefined],
    ["unclosed definitions", fill("token:{"), "labelled_value"],
    ["many small definitions", fill("token:\n  type: string\n"), "labelled_value"],
    ["environment lines", fill("AB=\n"), "env_assignment"],
  ])("%s", (_name, text, category) => {
    expect(findSecret(text)?.category).toBe(category);
    const lines = findSecretsInSource(text);
    expect(lines.length).toBe(category === undefined ? 0 : Math.min(100, lines.length));
    expect(lines.length).toBeLessThanOrEqual(100);
  });

  it("walks a wide value of many strings", () => {
    const value = { items: Array.from({ length: 50_000 }, (_, i) => `item ${i}: token budget`) };
    expect(findSecretInValue(value)).toBeUndefined();
  });
});
