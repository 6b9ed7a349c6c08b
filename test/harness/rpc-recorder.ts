import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export type RecordedRequest = { method: string; params: unknown[] };

export type RpcRecorder = {
  url: string;
  /** Every JSON-RPC request received since the last `clear()` (a batch's members one by one). */
  requests: () => RecordedRequest[];
  clear: () => void;
  /**
   * Holds back each HTTP request holding a method `select` picks until `release()`; resolves once
   * one such request has arrived.
   */
  hold: (select: (method: string) => boolean) => Promise<void>;
  release: () => void;
  close: () => Promise<void>;
};

/**
 * An HTTP JSON-RPC proxy to `target` that records every request it forwards, with its
 * parameters: a test counts what a client asked the node for (and with what gas), and can hold
 * some methods back to see what the client does meanwhile.
 */
export async function startRpcRecorder(params: { target: string }): Promise<RpcRecorder> {
  let recorded: RecordedRequest[] = [];
  let select: ((method: string) => boolean) | undefined;
  let arrived: (() => void) | undefined;
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
      const parsed = JSON.parse(body) as RecordedRequest | RecordedRequest[];
      const requests = Array.isArray(parsed) ? parsed : [parsed];
      recorded.push(...requests.map((r) => ({ method: r.method, params: r.params ?? [] })));
      if (select && requests.some((r) => select?.(r.method))) {
        waiting.push(() => void forward(body, res));
        arrived?.();
        return;
      }
      void forward(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("recorder has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: () => [...recorded],
    clear: () => {
      recorded = [];
    },
    hold: (which) => {
      select = which;
      return new Promise<void>((resolve) => {
        arrived = resolve;
      });
    },
    release: () => {
      select = undefined;
      arrived = undefined;
      for (const release of waiting.splice(0)) release();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
