// Build step: writes gpt-tokenizer's o200k_base merge ranks as JSON beside the built token
// counter (dist/context/o200k-ranks.json), which loads them much faster than the JavaScript
// module they ship in (see src/context/tokens.ts). Same data, so the same counts.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ranks = require("gpt-tokenizer/cjs/bpeRanks/o200k_base").default;
writeFileSync(new URL("../dist/context/o200k-ranks.json", import.meta.url), JSON.stringify(ranks));
