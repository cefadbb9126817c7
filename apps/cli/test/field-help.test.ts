import { describe, expect, it } from "vitest";
import { awr } from "./support/cli-harness.js";

/** A command's help says what each of its arguments means for that command. */
describe("argument help", () => {
  it("describes a name by what it means in the command, not in another one", async () => {
    const object = await awr(["object", "show", "--help"]);
    expect(object.stdout).toMatch(/^ {2}kind +what to show$/m);

    expect(object.stdout).toMatch(/^ {2}ref +a work item's key or id, or a checkpoint's id$/m);
    expect(object.stdout).toMatch(/^ {2}--full +all of it, not the brief view$/m);
    const search = await awr(["search", "--help"]);
    expect(search.stdout).toMatch(/--type <type> +only hits of this kind/);
    const event = await awr(["event", "show", "--help"]);
    expect(event.stdout).toMatch(/^ {2}event +the event's id$/m);
  });
});
