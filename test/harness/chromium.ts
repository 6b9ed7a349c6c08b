import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Debian's Chromium, which playwright-core drives (no browser download is possible here). */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Installs Debian's `chromium` package when it is missing (CI's `.ci/run` does the same
 * first). Needs root, as the project's machines run tests.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], {
    stdio: "inherit",
    env,
  });
  if (!existsSync(CHROMIUM))
    throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing`);
  return CHROMIUM;
}
