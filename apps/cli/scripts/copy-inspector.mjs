// Build step after the bundle: copies what `awr inspector` serves and starts from into dist/,
// which the package ships: the board's static files (inspector/ → dist/inspector-web/) and the
// demo project for --demo (examples/demo-project → dist/demo-project/).
import { cpSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** @type {{ from: string; to: string }[]} */
const copies = [
  { from: join(PACKAGE_ROOT, "inspector"), to: join(PACKAGE_ROOT, "dist", "inspector-web") },
  {
    from: join(PACKAGE_ROOT, "..", "..", "examples", "demo-project"),
    to: join(PACKAGE_ROOT, "dist", "demo-project"),
  },
];
for (const { from, to } of copies) {
  if (!existsSync(from)) throw new Error(`copy-inspector: ${from} is missing`);
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
}
