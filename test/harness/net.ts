import { createServer } from "node:net";

/**
 * `TEST_PORTS=<first>-<last>`: the ports the suites listen on, for a machine that shares its
 * ports with other work; unset, the OS picks.
 */
const RANGE = /^(\d+)-(\d+)$/.exec(process.env.TEST_PORTS ?? "");
/**
 * Ports of the range this process has handed out: never again, since whether its user has bound
 * it yet cannot be seen from here.
 */
const handedOut = new Set<number>();

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
      if ((await listenOnce(port)) === port) {
        handedOut.add(port);
        return port;
      }
    }
    throw new Error(`no free port left in TEST_PORTS=${process.env.TEST_PORTS}`);
  }
  const port = await listenOnce(0);
  if (port === undefined) throw new Error("no port assigned");
  return port;
}
