import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { testProgram } from "../../../../scripts/test/test-programs.mjs";

/** The `awr` program, bundled from the sources for this test run, run as a user runs `awr`. */
export function awrBin(): string {
  return testProgram("awr");
}

/** How long a started inspector has to print its URL, and a stopped one to exit. */
const START_MS = 20_000;
const STOP_MS = 10_000;

export interface Inspector {
  url: string;
  port: number;
  child: ChildProcess;
  /** Sends the signal and resolves to the exit code; SIGKILL if it outlives STOP_MS. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
  stdout(): string;
  stderr(): string;
}

/** `awr inspector --port 0 --json --no-open ...args`, resolved once it printed its URL. */
export function startInspector(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<Inspector> {
  const child = spawn(
    process.execPath,
    [awrBin(), "inspector", "--port", "0", "--json", "--no-open", ...args],
    {
      // Each server stops by itself after two minutes, whatever happens to the test.
      env: { PATH: process.env["PATH"], AWR_INSPECTOR_LIFETIME_MS: "120000", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`inspector did not start: ${err}`));
    }, START_MS);
    const onData = () => {
      if (!out.includes("\n")) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      const { url } = JSON.parse(out.split("\n")[0] as string) as { url: string };
      resolve({
        url,
        port: Number(new URL(url).port),
        child,
        stdout: () => out,
        stderr: () => err,
        async stop(signal = "SIGTERM") {
          const started = Date.now();
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const kill = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
          const code = await exited;
          clearTimeout(kill);
          return { code, ms: Date.now() - started };
        },
      });
    };
    child.stdout?.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`inspector exited (${code}) before printing its URL: ${err}`));
    });
  });
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * One request over node:http with exactly these headers (Host included: a browser's fetch could
 * not forge it) and this raw path (no normalisation).
 */
export function raw(
  port: number,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`timed out: ${options.path}`)));
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The guard header every non-GET request needs. */
export const GUARD = { "x-awr-inspector": "1" };
