import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
});
