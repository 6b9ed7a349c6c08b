import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

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
 * (single or batched) until `open()`, and delays those `delayMs` names; the rest pass straight
 * through. Lets a test freeze or slow one part of a client's work, e.g. an indexer's log
 * fetching, while everything else goes on.
 */
export async function startRpcGate(params: {
  target: string;
  hold: (method: string) => boolean;
  /** Milliseconds to delay each request of `method` by (default none), checked per request. */
  delayMs?: (method: string) => number;
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
      const parsed = JSON.parse(body) as { method: string } | { method: string }[];
      const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((r) => r.method);
      const gated = methods.filter((m) => params.hold(m));
      if (holding && gated.length > 0) {
        heldMethods.push(...gated);
        waiting.push(() => void forward(body, res));
        return;
      }
      const delay = Math.max(0, ...methods.map((m) => params.delayMs?.(m) ?? 0));
      if (delay > 0) setTimeout(() => void forward(body, res), delay);
      else void forward(body, res);
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
