import { describe, expect, it } from "vitest";
import { markedExcerpt } from "../src/storage/search-terms.js";

describe("a search excerpt", () => {
  const id = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  const text = `${"lead ".repeat(12)}session ${id} claimed 商品目录 and moved on ${"tail ".repeat(12)}`;

  it("never cuts an id (so reads that withhold ids can find it whole)", () => {
    for (let width = 8; width <= 80; width++) {
      const excerpt = markedExcerpt(text, ["商品"], width);
      const tokens = excerpt.replace(/[…[\]]/g, " ").split(/\s+/);
      const pieces = tokens.filter((t) => t !== id && t.length > 0 && id.includes(t));
      expect({ width, pieces }).toEqual({ width, pieces: [] });
    }
  });

  it("stays bounded by the width and a word's reach", () => {
    const long = `${"a".repeat(500)}商品${"b".repeat(500)}`;
    expect(markedExcerpt(long, ["商品"], 20).length).toBeLessThanOrEqual(20 + 2 * 32 + 4);
  });
});
