import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunk, renderSegments } from "../src/context/context-records.js";
import { countTokens, encodingFromRanks } from "../src/context/tokens.js";
import { tempRoot } from "./helpers/backends.js";

const require = createRequire(import.meta.url);

const SAMPLES = [
  "",
  "Hello, world!",
  'Status: "blocked" (raw "blocked")\nBlocker present: true\n',
  "  indented\tcode();\n\n\n// trailing spaces   ",
  "Unicode: 验收标准 — naïve café, emoji 🚀🧪, RTL שלום",
  "numbers 1234567890 3.14159 0xDEADBEEF",
  `${"long ".repeat(500)}end`,
];

describe("token counting", () => {
  it("counts the same from the build's ranks JSON as from gpt-tokenizer's own module", () => {
    const { root, remove } = tempRoot("awr-ranks-");
    try {
      // What scripts/write-token-ranks.mjs writes at build time.
      const file = join(root, "o200k-ranks.json");
      writeFileSync(file, JSON.stringify(require("gpt-tokenizer/cjs/bpeRanks/o200k_base").default));
      const fromJson = encodingFromRanks(file);
      const module =
        require("gpt-tokenizer/encoding/o200k_base") as typeof import("gpt-tokenizer/encoding/o200k_base");
      for (const text of SAMPLES) {
        expect(fromJson.countTokens(text), text.slice(0, 30)).toBe(module.countTokens(text));
        expect(countTokens(text)).toBe(module.countTokens(text));
      }
    } finally {
      remove();
    }
  });

  it("counts control-token spellings in source text as ordinary text instead of failing", () => {
    const module =
      require("gpt-tokenizer/encoding/o200k_base") as typeof import("gpt-tokenizer/encoding/o200k_base");
    const text = "A rule body may quote <|endoftext|> or <|im_start|> literally.";
    expect(() => module.countTokens(text)).toThrow(/special token/);
    expect(countTokens(text)).toBe(module.encode(text, { disallowedSpecial: new Set() }).length);
    expect(countTokens(text)).toBeGreaterThan(countTokens("A rule body may quote or literally."));
  });

  it("counts a packet exactly as the sum of its segments, whatever the chunk texts hold", () => {
    const texts = [
      "",
      "ends with a slash /",
      "/starts with a slash",
      "trailing spaces   ",
      "   leading spaces",
      "CRLF line\r\nnext\r",
      "numbers 123\n456",
      "Unicode 验收 — naïve 🚀 \u00a0nbsp\u2028sep",
      "<|endoftext|> and ''s contractions 'll",
      "\n\nblank lines around\n\n",
    ];
    const chunks = texts.map((text, i) =>
      chunk(`k${i}/${text.slice(0, 3)}`, i % 2 === 0 ? "work" : "rules", text, [], {
        required: true,
      }),
    );
    const segments = renderSegments("AWR L1 context\nProject: p\n", chunks, 12);
    const sum = segments.reduce((n, s) => n + countTokens(s), 0);
    expect(sum).toBe(countTokens(segments.join("")));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: "grapheme" }), fc.string({ maxLength: 12 })), {
          maxLength: 8,
        }),
        (pairs) => {
          const random = pairs.map(([text, key], i) =>
            chunk(`${key}${i}`, "delta", text, [], { priority: i, recency: 0 }),
          );
          const parts = renderSegments("AWR L1 context\n", random, pairs.length);
          return parts.reduce((n, s) => n + countTokens(s), 0) === countTokens(parts.join(""));
        },
      ),
      { numRuns: 300 },
    );
  });
});
