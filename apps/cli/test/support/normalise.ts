/**
 * Makes two runs of the same operations comparable: ULIDs (ids minted at runtime), hex digests
 * and timestamps differ between two copies of a project even when the operations are the same.
 * Each distinct ULID or digest becomes a numbered placeholder in order of first appearance, so
 * two documents are equal only if the same ids appear in the same places; the project root is
 * replaced by `<root>`. One Normaliser per side, used across the whole sequence.
 */
export class Normaliser {
  readonly #ids = new Map<string, string>();
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  value(input: unknown): unknown {
    if (typeof input === "string") return this.#text(input);
    if (Array.isArray(input)) return input.map((item) => this.value(item));
    if (input !== null && typeof input === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(input)) {
        // Times in milliseconds (created_at, expires_at) are minted per run, like ISO times.
        out[key] = key.endsWith("_at") && typeof field === "number" ? "<ms>" : this.value(field);
      }
      return out;
    }
    return input;
  }

  #text(text: string): string {
    return text
      .split(this.#root)
      .join("<root>")
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, "<time>")
      .replace(/[0-9a-f]{64}|[0-9A-HJKMNP-TV-Z]{26}/g, (id) => {
        let name = this.#ids.get(id);
        if (name === undefined) {
          name = `<id${this.#ids.size + 1}>`;
          this.#ids.set(id, name);
        }
        return name;
      });
  }
}
