/**
 * `TEST_PORTS`: processes that hand out ports from the same range at once (vitest's workers)
 * never hand out the same port, and leave no claim behind when they exit. Without it, one process
 * never hands out a port the OS picked twice.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { expect, test } from "vitest";

/** Ports of a range no suite here is given (a machine sets the suites' own). */
const FIRST = 47_900;
const LAST = 47_923;
const EACH = 8;

/**
 * A process that draws `count` ports (from the range, or from the OS without one), prints them,
 * and lives until its standard input closes.
 */
function drawer(count = EACH, range: string | null = `${FIRST}-${LAST}`): ChildProcess {
  const script = `import { freePort } from ${JSON.stringify(join(import.meta.dirname, "net.ts"))};
const ports = [];
for (let i = 0; i < ${count}; i++) ports.push(await freePort());
console.log(JSON.stringify(ports));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));`;
  const { TEST_PORTS: _ports, ...env } = process.env;
  return spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env: range === null ? env : { ...env, TEST_PORTS: range },
    stdio: ["pipe", "pipe", "inherit"],
  });
}

/** The ports a drawer printed. */
async function portsOf(child: ChildProcess): Promise<number[]> {
  if (!child.stdout) throw new Error("the drawer has no stdout");
  for await (const line of createInterface({ input: child.stdout })) {
    return JSON.parse(line) as number[];
  }
  throw new Error("the drawer printed nothing");
}

test("a process drawing from the range another live process drew from gets other ports; no claim is left after both exit", async () => {
  const first = drawer();
  const firstPorts = await portsOf(first);
  // The first still holds its ports while the second draws.
  const second = drawer();
  const secondPorts = await portsOf(second);
  for (const child of [first, second]) {
    const exited = once(child, "exit");
    child.stdin?.end();
    await exited;
  }
  for (const drawn of [firstPorts, secondPorts]) {
    expect(drawn).toHaveLength(EACH);
    for (const port of drawn) {
      expect(port).toBeGreaterThanOrEqual(FIRST);
      expect(port).toBeLessThanOrEqual(LAST);
    }
  }
  expect(new Set([...firstPorts, ...secondPorts]).size).toBe(2 * EACH);
  const claims = join(tmpdir(), `test-ports-${FIRST}-${LAST}`);
  expect(existsSync(claims) ? readdirSync(claims) : []).toEqual([]);
}, 60_000);

test("without TEST_PORTS, the ports the OS picks are never handed out twice (asked for before anything listens on them)", async () => {
  // 1,000 draws from the OS's ephemeral range of about 28,000 ports: without the check, a
  // repeat is all but certain (the birthday bound puts it near 1 - e^-18).
  const child = drawer(1_000, null);
  const ports = await portsOf(child);
  const exited = once(child, "exit");
  child.stdin?.end();
  await exited;
  expect(ports).toHaveLength(1_000);
  expect(new Set(ports).size).toBe(1_000);
}, 60_000);
