/**
 * A private Postgres cluster for one suite: `initdb` into a temporary directory, `pg_ctl` on a
 * free loopback port with trust auth. Fault tests stop and restart it at will; the machine's
 * shared Postgres (other suites use it) is never touched.
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./net.js";

const run = promisify(execFile);

export type PostgresCluster = {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: every connection is cut, new ones are refused. */
  stop: () => Promise<void>;
  /** `pg_ctl start`; resolves once the server accepts connections. */
  start: () => Promise<void>;
  /** Stops the server if it runs and deletes its data directory. */
  destroy: () => Promise<void>;
};

/** The newest `initdb`/`pg_ctl` of the machine's PostgreSQL packages. */
function postgresBinDir(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const version = versions[0];
  if (version === undefined) throw new Error(`no PostgreSQL server binaries under ${base}`);
  return join(base, version, "bin");
}

/** initdb and postgres refuse to run as root: as root, run them as the `postgres` user. */
async function asOwner(binary: string, args: string[]): Promise<void> {
  const root = process.getuid?.() === 0;
  const [file, argv] = root
    ? ["runuser", ["-u", "postgres", "--", binary, ...args]]
    : [binary, args];
  await run(file, argv, { timeout: 60_000 });
}

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Creates and starts a cluster.
 * @example const cluster = await startPostgresCluster(); ...; await cluster.destroy();
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), "pg-cluster-"));
  if (process.getuid?.() === 0) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, "data");
  const port = await freePort();
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  await asOwner(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "--encoding=UTF8",
    "--no-sync",
  ]);
  // Sockets in the cluster's own directory; TCP on loopback only; no fsync (a test cluster).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  let running = false;
  const start = async () => {
    await asOwner(join(bin, "pg_ctl"), [
      "-D",
      data,
      "-o",
      options,
      "-l",
      join(dir, "log"),
      "-w",
      "start",
    ]);
    running = true;
    const deadline = Date.now() + 30_000;
    while (!(await accepts(url))) {
      if (Date.now() > deadline)
        throw new Error(`Postgres on port ${port} did not accept connections`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async () => {
    await asOwner(join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"]);
    running = false;
  };
  await start();
  return {
    url,
    port,
    start,
    stop,
    destroy: async () => {
      if (running) await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
