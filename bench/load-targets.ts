/**
 * What the load runs send, and what they watch: the requests of each endpoint on the devnet
 * world, the answers expected of them, and the memory of the process that serves the API.
 * Shared by bench/load.ts and test/reliability/load.test.ts.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { basename } from "node:path";
import { type Address, createPublicClient, http, parseEther, parseUnits } from "viem";
import { UniswapV2PairAbi } from "../abis/UniswapV2Pair.js";
import { runActivity } from "../devnet/activity.js";
import type { Deployment } from "../devnet/deployment.js";
import { NATIVE_TOKEN_ADDRESS } from "../engine/index.js";
import { type LoadReport, type LoadRequest, runLoad } from "./load-runner.js";

export type Endpoint = "tokens" | "route" | "bundle";
export const ENDPOINTS: readonly Endpoint[] = ["tokens", "route", "bundle"];

export type PlainRequest = { method: "GET" | "POST"; path: string; body?: string };

/** The sender of every route and bundle: the simulation funds it, so any address does. */
export const LOAD_SENDER: Address = "0x00000000000000000000000000000000000a11ce";
const THIRD: Address = "0x0000000000000000000000000000000000007411";

/**
 * The requests of each endpoint: the first page of tokens; four routes (USDC → WETH,
 * ETH → DAI, DAI → vault share, LINK → USDT, as bench/http.ts); four bundles (the SPEC
 * example of route, deposit and transfer; wrap, swap on a named V3 pool, split into two
 * deposits; route then unwrap; a swap on a named V2 pair through the core wallet).
 */
export async function endpointRequests(params: {
  deployment: Deployment;
  rpcUrl: string;
}): Promise<Record<Endpoint, PlainRequest[]>> {
  const d = params.deployment;
  const token = (symbol: string): Address => {
    const t = d.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`no token ${symbol} on the devnet`);
    return t.address;
  };
  const vault = (symbol: string): Address => {
    const v = d.vaults.find((x) => x.symbol === symbol);
    if (!v) throw new Error(`no vault ${symbol} on the devnet`);
    return v.address;
  };
  const client = createPublicClient({ transport: http(params.rpcUrl) });
  const poolOf = async (pools: readonly Address[], a: Address, b: Address): Promise<Address> => {
    const wanted = [a.toLowerCase(), b.toLowerCase()].sort().join();
    for (const pool of pools) {
      const [t0, t1] = await Promise.all([
        client.readContract({ address: pool, abi: UniswapV2PairAbi, functionName: "token0" }),
        client.readContract({ address: pool, abi: UniswapV2PairAbi, functionName: "token1" }),
      ]);
      if ([t0.toLowerCase(), t1.toLowerCase()].sort().join() === wanted) return pool;
    }
    throw new Error(`no pool of ${a} and ${b} on the devnet`);
  };
  const [weth, usdc, usdt, dai, link] = ["WETH", "USDC", "USDT", "DAI", "LINK"].map(token) as [
    Address,
    Address,
    Address,
    Address,
    Address,
  ];
  const svUsdc = vault("svUSDC");
  const ref = (i: number, index?: number) =>
    index === undefined ? { useOutputOfCallAt: i } : { useOutputOfCallAt: i, index };

  const routes = [
    { tokenIn: usdc, tokenOut: weth, amountIn: parseUnits("25000", 6).toString() },
    { tokenIn: NATIVE_TOKEN_ADDRESS, tokenOut: dai, amountIn: parseEther("2").toString() },
    { tokenIn: dai, tokenOut: svUsdc, amountIn: parseEther("1000").toString() },
    { tokenIn: link, tokenOut: usdt, amountIn: parseEther("100").toString() },
  ];
  const bundles: { query: Record<string, string>; actions: unknown[] }[] = [
    {
      query: {},
      actions: [
        {
          protocol: "core",
          action: "route",
          args: {
            tokenIn: NATIVE_TOKEN_ADDRESS,
            tokenOut: usdc,
            amountIn: parseEther("1").toString(),
            slippage: 100,
          },
        },
        {
          protocol: "savings-vaults",
          action: "deposit",
          args: { primaryAddress: svUsdc, tokenIn: usdc, tokenOut: svUsdc, amountIn: ref(0) },
        },
        {
          protocol: "core",
          action: "transfer",
          args: { token: svUsdc, receiver: THIRD, amount: ref(1) },
        },
      ],
    },
    {
      query: { routingStrategy: "delegate" },
      actions: [
        {
          protocol: "wrapped-native",
          action: "deposit",
          args: { amountIn: parseEther("1.5").toString() },
        },
        {
          protocol: "uniswap-v3",
          action: "swap",
          args: {
            primaryAddress: await poolOf(d.uniswapV3.pools, weth, usdc),
            tokenIn: weth,
            tokenOut: usdc,
            amountIn: ref(0),
          },
        },
        { protocol: "core", action: "split", args: { amount: ref(1), bps: [6000, 4000] } },
        {
          protocol: "savings-vaults",
          action: "deposit",
          args: { primaryAddress: svUsdc, tokenIn: usdc, tokenOut: svUsdc, amountIn: ref(2, 0) },
        },
        {
          protocol: "savings-vaults",
          action: "deposit",
          args: {
            primaryAddress: svUsdc,
            tokenIn: usdc,
            tokenOut: svUsdc,
            amountIn: ref(2, 1),
            receiver: THIRD,
          },
        },
      ],
    },
    {
      query: {},
      actions: [
        {
          protocol: "core",
          action: "route",
          args: { tokenIn: dai, tokenOut: weth, amountIn: parseEther("1000").toString() },
        },
        {
          protocol: "wrapped-native",
          action: "withdraw",
          args: { primaryAddress: weth, amountIn: ref(0) },
        },
      ],
    },
    {
      query: { routingStrategy: "corewallet" },
      actions: [
        {
          protocol: "uniswap-v2",
          action: "swap",
          args: {
            primaryAddress: await poolOf(d.uniswapV2.pairs, usdt, weth),
            tokenIn: usdt,
            tokenOut: weth,
            amountIn: parseUnits("5000", 6).toString(),
          },
        },
      ],
    },
  ];
  return {
    tokens: [{ method: "GET", path: "/v1/tokens" }],
    route: routes.map((r) => ({
      method: "GET",
      path: `/v1/shortcuts/route?${new URLSearchParams({ fromAddress: LOAD_SENDER, ...r })}`,
    })),
    bundle: bundles.map((b) => ({
      method: "POST",
      path: `/v1/shortcuts/bundle?${new URLSearchParams({ fromAddress: LOAD_SENDER, ...b.query })}`,
      body: JSON.stringify(b.actions),
    })),
  };
}

/**
 * Asks each request once and keeps the answer as the one expected under load (`exact`: every
 * answer must equal it byte for byte, for runs where the chain does not move). Throws when an
 * answer is not a 200.
 */
export async function expectAnswers(params: {
  url: string;
  endpoint: Endpoint;
  requests: PlainRequest[];
  exact: boolean;
}): Promise<LoadRequest[]> {
  const expected: LoadRequest[] = [];
  for (const r of params.requests) {
    const res = await fetch(`${params.url}${r.path}`, {
      method: r.method,
      ...(r.body === undefined
        ? {}
        : { body: r.body, headers: { "content-type": "application/json" } }),
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${r.method} ${r.path}: ${res.status} ${body}`);
    expected.push({ ...r, expected: { kind: params.endpoint, body, exact: params.exact } });
  }
  return expected;
}

/** Resident set size of process `pid` in MiB (`VmRSS` of `/proc/<pid>/status`). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kib) / 1024;
}

/**
 * Checks that `pid` is a node process listening on `port` itself (not a wrapper that started
 * the server as a child), so that its RSS is the memory of the API.
 */
export function assertServes(pid: number, port: number): void {
  const exe = basename(readlinkSync(`/proc/${pid}/exe`));
  if (exe !== "node") throw new Error(`process ${pid} runs ${exe}, not node`);
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const listening = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
      if (f[1]?.endsWith(`:${hexPort}`) && f[3] === "0A" && f[9]) listening.add(f[9]);
    }
  }
  if (listening.size === 0) throw new Error(`nothing listens on port ${port}`);
  const sockets = readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
    } catch {
      return [];
    }
  });
  if (!sockets.some((s) => listening.has(/^socket:\[(\d+)\]$/.exec(s)?.[1] ?? "")))
    throw new Error(`process ${pid} does not hold the socket listening on port ${port}`);
}

/** Ponder's own process metrics (its `/metrics`): major GCs so far and the V8 heap in use. */
export async function heapOf(url: string): Promise<{ majorGcs: number; heapUsedMiB: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (pattern: RegExp) => {
    const found = pattern.exec(text)?.[1];
    if (found === undefined) throw new Error(`${url}/metrics has no ${pattern.source}`);
    return Number(found);
  };
  if (!/^# TYPE nodejs_gc_duration_seconds histogram$/m.test(text))
    throw new Error(`${url}/metrics has no nodejs_gc_duration_seconds`);
  // A GC kind appears in the histogram once it has happened: absent means none yet.
  const majorGcs = /^nodejs_gc_duration_seconds_count\{[^}]*kind="major"[^}]*\} (\d+)$/m.exec(text);
  return {
    majorGcs: Number(majorGcs?.[1] ?? 0),
    heapUsedMiB: value(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)$/m) / 2 ** 20,
  };
}

/**
 * Loads `requests` in rounds of `roundSeconds` until the server has run two major GCs under
 * load (at most `maxSeconds`): its heap has then grown from its start-up size to its working
 * size (the first major GC of a fresh process comes early, at a small heap limit), so RSS
 * read afterwards is a baseline that garbage not yet collected cannot inflate much. Resolves
 * with the seconds spent and whether the two major GCs happened.
 */
export async function warmUp(params: {
  url: string;
  connections: number;
  requests: LoadRequest[];
  roundSeconds: number;
  maxSeconds: number;
  /** The server's pid: its RSS is sampled every 200 ms during the warm-up (`peakRssMiB`). */
  pid?: number;
}): Promise<{ seconds: number; majorGc: boolean; report: LoadReport; peakRssMiB?: number }> {
  const { majorGcs: before } = await heapOf(params.url);
  let peakRssMiB: number | undefined;
  const { pid } = params;
  const sample = () => {
    if (pid !== undefined) peakRssMiB = Math.max(peakRssMiB ?? 0, rssMiB(pid));
  };
  const sampler = setInterval(sample, 200);
  try {
    let seconds = 0;
    for (;;) {
      const report = await runLoad({
        url: params.url,
        connections: params.connections,
        seconds: params.roundSeconds,
        requests: params.requests,
      });
      seconds += params.roundSeconds;
      sample();
      const majorGc = (await heapOf(params.url)).majorGcs >= before + 2;
      if (majorGc || seconds >= params.maxSeconds) return { seconds, majorGc, report, peakRssMiB };
    }
  } finally {
    clearInterval(sampler);
  }
}

/** The devnet activity generator, run alongside a load. */
export type ActivityRun = {
  /** Resolves once the generator's one-time approvals are mined and its actions begin. */
  started: Promise<void>;
  /**
   * Stops after the action under way; resolves with the number of actions, and the error
   * that stopped the generator early, if one did (a failed action is not the service's).
   */
  stop: () => Promise<{ actions: number; error?: Error }>;
};

export function startActivity(params: {
  rpcUrl: string;
  deployment: Deployment;
  intervalMs: number;
  seed: number;
}): ActivityRun {
  const controller = new AbortController();
  let actions = 0;
  let begin: () => void = () => {};
  const started = new Promise<void>((resolveStarted) => {
    begin = resolveStarted;
  });
  const run = runActivity({
    rpcUrl: params.rpcUrl,
    deployment: params.deployment,
    intervalMs: params.intervalMs,
    seed: params.seed,
    signal: controller.signal,
    onAction: () => {
      actions++;
      begin();
    },
  }).then(
    () => undefined,
    (error: Error) => error,
  );
  return {
    started: Promise.race([
      started,
      run.then((error) => {
        if (error) throw error;
      }),
    ]),
    stop: async () => {
      controller.abort();
      const error = await run;
      return error ? { actions, error } : { actions };
    },
  };
}
