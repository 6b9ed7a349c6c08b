import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * `TEST_PORTS=<first>-<last>`: the ports the suites listen on, for a machine that shares its
 * ports with other work; unset, the OS picks.
 */
const RANGE = /^(\d+)-(\d+)$/.exec(process.env.TEST_PORTS ?? "");
/**
 * Ports this process has handed out (of the range, or picked by the OS): never again, since
 * whether its user has bound it yet cannot be seen from here.
 */
const handedOut = new Set<number>();

/**
 * Claims `port` of the range for this process against the other processes of the run (vitest's
 * workers each hand out ports from the same range): a file created exclusively under the OS temp
 * directory, holding the claimant's pid. A claim whose process has ended is taken over.
 */
function claim(port: number): boolean {
  const dir = join(tmpdir(), `test-ports-${RANGE?.[1]}-${RANGE?.[2]}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
    if (claimed.size === 0) process.once("exit", () => releaseClaims());
    claimed.add(file);
    return true;
  } catch {
    const owner = Number(readFileSync(file, "utf8"));
    if (owner === process.pid || alive(owner)) return false;
    rmSync(file, { force: true });
    return claim(port);
  }
}

/** This process's claims, removed when it exits. */
const claimed = new Set<string>();

function releaseClaims(): void {
  for (const file of claimed) rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function listenOnce(port: number): Promise<number | undefined> {
  return await new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close(() => resolve(undefined));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it, or `TEST_PORTS` holds it). */
export async function freePort(): Promise<number> {
  if (RANGE) {
    const [first, last] = [Number(RANGE[1]), Number(RANGE[2])];
    for (let port = first; port <= last; port++) {
      if (handedOut.has(port)) continue;
      if ((await listenOnce(port)) === port && claim(port)) {
        handedOut.add(port);
        return port;
      }
    }
    throw new Error(`no free port left in TEST_PORTS=${process.env.TEST_PORTS}`);
  }
  // The OS may hand the same port out twice while nothing listens on it yet (a suite asking for
  // its node's port and then its service's before starting either): never the same one again.
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await listenOnce(0);
    if (port === undefined) throw new Error("no port assigned");
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("the OS kept assigning ports this process had handed out");
}
