import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { freePort } from "./net.js";

export type RecordedRequest = { method: string; params: unknown[] };

/** One JSON-RPC answer, without its envelope: a result or an error. */
export type RpcAnswer =
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } };

/**
 * How the node behind the proxy answers one request in place of the target's plain answer (a
 * node with limits of its own): `forward` sends a request, changed or not, to the target.
 */
export type NodeBehaviour = (
  request: RecordedRequest,
  forward: (request: RecordedRequest) => Promise<RpcAnswer>,
) => Promise<RpcAnswer>;

export type RpcRecorder = {
  url: string;
  /** Every JSON-RPC request received since the last `clear()` (a batch's members one by one). */
  requests: () => RecordedRequest[];
  /** HTTP requests since the last `clear()` whose body was a JSON-RPC batch (an array). */
  batches: () => number;
  clear: () => void;
  /**
   * Holds back each HTTP request holding a method `select` picks until `release()`; resolves once
   * one such request has arrived.
   */
  hold: (select: (method: string) => boolean) => Promise<void>;
  release: () => void;
  close: () => Promise<void>;
};

type Envelope = RecordedRequest & { jsonrpc?: string; id?: unknown };

/**
 * An HTTP JSON-RPC proxy to `target` that records every request it forwards, with its
 * parameters: a test counts what a client asked the node for (and with what gas), and can hold
 * some methods back to see what the client does meanwhile. With `node`, each request is answered
 * as that node would (a gas cap, a response size limit, pruned state), a batch member by member.
 */
export async function startRpcRecorder(params: {
  target: string;
  node?: NodeBehaviour;
  /** Most members a batch may have; a longer one is refused whole, as geth refuses it. */
  batchLimit?: number;
}): Promise<RpcRecorder> {
  let recorded: RecordedRequest[] = [];
  let batched = 0;
  let select: ((method: string) => boolean) | undefined;
  let arrived: (() => void) | undefined;
  const waiting: (() => void)[] = [];
  const post = (body: string) =>
    fetch(params.target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
  const answerOne = async (behaviour: NodeBehaviour, request: Envelope) => {
    const answer = await behaviour(
      { method: request.method, params: request.params ?? [] },
      async (sent) => {
        const reply = (await (
          await post(JSON.stringify({ jsonrpc: "2.0", id: 1, ...sent }))
        ).json()) as RpcAnswer;
        return "error" in reply ? { error: reply.error } : { result: reply.result };
      },
    );
    return { jsonrpc: "2.0", id: request.id ?? null, ...answer };
  };
  const forward = async (body: string, res: ServerResponse) => {
    try {
      const parsed = JSON.parse(body) as Envelope | Envelope[];
      if (
        Array.isArray(parsed) &&
        parsed.length > (params.batchLimit ?? Number.POSITIVE_INFINITY)
      ) {
        // geth's answer to a batch over its `--rpc.batch-request-limit` (rpc/handler.go,
        // respondWithBatchTooLarge): one error, with the first call's id.
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify([
            {
              jsonrpc: "2.0",
              id: parsed[0]?.id ?? null,
              error: { code: -32600, message: "batch too large" },
            },
          ]),
        );
        return;
      }
      if (params.node) {
        const behaviour = params.node;
        const answers = Array.isArray(parsed)
          ? await Promise.all(parsed.map((r) => answerOne(behaviour, r)))
          : await answerOne(behaviour, parsed);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(answers));
        return;
      }
      const upstream = await post(body);
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
      if (Array.isArray(parsed)) batched++;
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
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("recorder has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: () => [...recorded],
    batches: () => batched,
    clear: () => {
      recorded = [];
      batched = 0;
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
