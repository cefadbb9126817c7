import { describe, expect, it } from "vitest";
import { awr } from "./support/cli-harness.js";

/** A command's help says what each of its arguments means for that command. */
describe("argument help", () => {
  it("describes a name by what it means in the command, not in another one", async () => {
    const object = await awr(["object", "show", "--help"]);
    expect(object.stdout).toMatch(/^ {2}kind +what to show$/m);

    expect(object.stdout).toMatch(
      /^ {2}ref +a goal\/plan\/rule\/work key or id, or a checkpoint id$/m,
    );
    expect(object.stdout).toMatch(/^ {2}--full +all of it, not the brief view$/m);
    expect(object.stdout).toMatch(/--max-bytes <n> +with --full, refuse more than/);
    const search = await awr(["search", "--help"]);
    expect(search.stdout).toMatch(/--type <type> +only hits of this kind/);
    const event = await awr(["event", "show", "--help"]);
    expect(event.stdout).toMatch(/^ {2}event +the event's id$/m);
    expect(event.stdout).toMatch(/--max-bytes <n> +with --full, refuse a payload/);
  });
});
