import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

type JsonRpcRequest = { method: string; params?: unknown[] };

async function rpc(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

export type RpcGate = {
  url: string;
  /** JSON-RPC requests that were held back so far, by method. */
  held: () => string[];
  /** Forwards the held requests and stops holding. */
  open: () => void;
  close: () => Promise<void>;
};

/**
 * An HTTP JSON-RPC proxy to `target` that holds back every request whose method `hold` selects
 * (single or batched) until `open()`, and can show its client a head that trails the chain's by
 * `latestLagBlocks` blocks (`eth_getBlockByNumber("latest")` answered with that older block);
 * the rest pass straight through. Lets a test freeze or slow one part of a client's work, e.g.
 * an indexer's log fetching or its discovery of new blocks, while everything else goes on.
 */
export async function startRpcGate(params: {
  target: string;
  hold: (method: string) => boolean;
  /**
   * Blocks by which the `latest` block the client is given trails the chain's head (default 0),
   * checked per request. `eth_blockNumber` is not changed.
   */
  latestLagBlocks?: () => number;
}): Promise<RpcGate> {
  let holding = true;
  const heldMethods: string[] = [];
  const waiting: (() => void)[] = [];
  const forward = async (body: string, res: ServerResponse) => {
    try {
      const upstream = await fetch(params.target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      res.writeHead(upstream.status, { "content-type": "application/json" });
      res.end(await upstream.text());
    } catch (error) {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(error));
    }
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
      const requests = Array.isArray(parsed) ? parsed : [parsed];
      const gated = requests.map((r) => r.method).filter((m) => params.hold(m));
      if (holding && gated.length > 0) {
        heldMethods.push(...gated);
        waiting.push(() => void forward(body, res));
        return;
      }
      const lag = params.latestLagBlocks?.() ?? 0;
      const asksLatest = requests.some(
        (r) => r.method === "eth_getBlockByNumber" && r.params?.[0] === "latest",
      );
      if (lag === 0 || !asksLatest) {
        void forward(body, res);
        return;
      }
      void (async () => {
        const head = BigInt((await rpc(params.target, "eth_blockNumber")) as string);
        const shown = `0x${(head > BigInt(lag) ? head - BigInt(lag) : 0n).toString(16)}`;
        for (const r of requests) {
          if (r.method === "eth_getBlockByNumber" && r.params?.[0] === "latest")
            r.params[0] = shown;
        }
        await forward(JSON.stringify(parsed), res);
      })().catch((error: unknown) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("gate has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    held: () => [...heldMethods],
    open: () => {
      holding = false;
      for (const release of waiting.splice(0)) release();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
