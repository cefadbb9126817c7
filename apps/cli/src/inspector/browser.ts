import { spawn } from "node:child_process";
import { findOnPath } from "../render/host-configs.js";

/**
 * Opens `url` in the desktop's browser, only where there is a desktop to open it on: xdg-open on
 * PATH with an X11 or Wayland display (macOS: its `open`). Elsewhere (a server, a container, CI)
 * nothing is started; the printed URL is the way in. Never waits for the opener, never fails.
 */
export function openBrowser(
  url: string,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  let opener: string | undefined;
  if (process.platform === "darwin") {
    opener = findOnPath("open", env["PATH"]);
  } else if (env["DISPLAY"] || env["WAYLAND_DISPLAY"]) {
    opener = findOnPath("xdg-open", env["PATH"]);
  }
  if (opener === undefined) return false;
  try {
    const child = spawn(opener, [url], { stdio: "ignore", detached: true, env: { ...env } });
    child.on("error", () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
