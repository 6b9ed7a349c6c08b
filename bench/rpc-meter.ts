/**
 * A JSON-RPC proxy in front of a chain node that counts, per method, the requests it forwards,
 * the bytes the node answered and, for `eth_getLogs`, the logs: what an indexer downloads.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export type MethodUse = { requests: number; bytes: number; logs: number };

export type RpcMeter = {
  url: string;
  /** What each method cost so far, by method. */
  usage: () => Map<string, MethodUse>;
  close: () => Promise<void>;
};

type RpcRequest = { id?: unknown; method?: string; params?: unknown };
type RpcAnswer = { id?: unknown; result?: unknown };

export type StartRpcMeterParameters = {
  target: string;
  /**
   * The name a request is counted under (default: its method), to tell apart requests of one
   * method by what they ask (the `eth_call`s of a batched read from single reads).
   */
  label?: (request: { method: string; params: unknown }) => string;
};

/** Starts a metering proxy to `target` on a free loopback port. */
export async function startRpcMeter(params: StartRpcMeterParameters): Promise<RpcMeter> {
  const usage = new Map<string, MethodUse>();
  const count = (method: string, bytes: number, logs: number) => {
    const use = usage.get(method) ?? { requests: 0, bytes: 0, logs: 0 };
    use.requests++;
    use.bytes += bytes;
    use.logs += logs;
    usage.set(method, use);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString();
      try {
        const upstream = await fetch(params.target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        const text = await upstream.text();
        const sent = JSON.parse(body) as RpcRequest | RpcRequest[];
        const answered = JSON.parse(text) as RpcAnswer | RpcAnswer[];
        const requests = Array.isArray(sent) ? sent : [sent];
        const answers = Array.isArray(answered) ? answered : [answered];
        for (const r of requests) {
          const answer = answers.find((a) => a.id === r.id);
          const bytes = Buffer.byteLength(JSON.stringify(answer ?? null));
          const logs = Array.isArray(answer?.result) ? answer.result.length : 0;
          const method = r.method ?? "?";
          const name = params.label ? params.label({ method, params: r.params }) : method;
          count(name, bytes, method === "eth_getLogs" ? logs : 0);
        }
        res.writeHead(upstream.status, { "content-type": "application/json" });
        res.end(text);
      } catch (error) {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("meter has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    usage: () => new Map(usage),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
