import { createConnection, createServer, type Socket } from "node:net";

export type TcpProxy = {
  port: number;
  /** Stops forwarding what clients send (it waits in the proxy) until `release`. */
  hold: () => void;
  release: () => void;
  /** Bytes clients sent while held, not yet forwarded. */
  heldBytes: () => number;
  close: () => Promise<void>;
};

/**
 * A loopback TCP proxy to `target` that can hold the client-to-server direction: a service
 * behind it (a database, say) then sees nothing of what is sent and answers nothing, as if
 * it were very slow.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let held = false;
  let waiting = 0;
  const pending: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop);
    upstream.on("error", drop);
    client.on("close", drop);
    upstream.on("close", drop);
    upstream.pipe(client);
    client.on("data", (chunk: Buffer) => {
      if (!held) {
        upstream.write(chunk);
        return;
      }
      waiting += chunk.length;
      pending.push(() => {
        waiting -= chunk.length;
        upstream.write(chunk);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  return {
    port: address.port,
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      for (const forward of pending.splice(0)) forward();
    },
    heldBytes: () => waiting,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
