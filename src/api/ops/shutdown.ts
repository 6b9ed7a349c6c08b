/**
 * Graceful shutdown. Ponder's own SIGTERM/SIGINT handler closes the HTTP server with a 1 s
 * grace (http-terminator) while it ends the database pools and RPC clients in parallel, then
 * exits: a request still running after 1 s is cut off, and one that queries the database after
 * the pools close fails. So the API takes the signal first: it stops listening (new connections
 * are refused), answers 503 to requests that arrive on connections already open, waits for the
 * requests in flight to finish (at most `timeoutMs`), and only then runs Ponder's handler.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { log } from "./log.js";

type DrainState = {
  inFlight: number;
  draining: boolean;
  /** The HTTP server the requests arrive on, learnt from the first request's socket. */
  server: Server | undefined;
  idle: (() => void)[];
  installed: boolean;
};

// Kept on globalThis: `ponder dev` re-evaluates the API module on every change, and the
// in-flight count and the signal handlers must survive that.
const STATE_KEY = Symbol.for("shortcuts.ops.drain");
const globals = globalThis as { [STATE_KEY]?: DrainState };
globals[STATE_KEY] ??= {
  inFlight: 0,
  draining: false,
  server: undefined,
  idle: [],
  installed: false,
};
const state: DrainState = globals[STATE_KEY];

/** Whether the process is shutting down: new requests are refused. */
export function isDraining(): boolean {
  return state.draining;
}

/**
 * Counts one request in flight until `release` is called (once); remembers the server from
 * the request's socket (`socket.server`, as http-terminator reads it too).
 */
export function enterRequest(socket: Socket | undefined): () => void {
  state.inFlight++;
  if (!state.server && socket) state.server = (socket as Socket & { server?: Server }).server;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    state.inFlight--;
    if (state.inFlight === 0) for (const resolve of state.idle.splice(0)) resolve();
  };
}

export function requestsInFlight(): number {
  return state.inFlight;
}

function whenIdle(timeoutMs: number): Promise<boolean> {
  if (state.inFlight === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    state.idle.push(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

type SignalName = "SIGTERM" | "SIGINT";

/**
 * Takes over SIGTERM and SIGINT (once per process): drains, then hands the signal to the
 * handlers that were installed before (Ponder's exit sequence). A second signal hands over at
 * once.
 */
export function installGracefulShutdown(params: { timeoutMs: number }): void {
  if (state.installed) return;
  state.installed = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const satisfies SignalName[]) {
    const previous = process.listeners(signal);
    process.removeAllListeners(signal);
    let handedOver = false;
    const handOver = () => {
      if (handedOver) return;
      handedOver = true;
      for (const listener of previous) (listener as (s: SignalName) => void)(signal);
    };
    process.on(signal, () => {
      if (state.draining) {
        handOver();
        return;
      }
      void drain(signal, params.timeoutMs).then(handOver);
    });
  }
}

async function drain(signal: SignalName, timeoutMs: number): Promise<void> {
  state.draining = true;
  const server = state.server;
  const inFlight = state.inFlight;
  log("warn", `received ${signal}: refusing new connections and draining`, {
    inFlight,
    timeoutMs,
  });
  if (server?.listening && inFlight > 0) {
    // Stop listening: new connections are refused; idle keep-alive connections are closed.
    server.close();
    // Ponder's terminator closes the server again once it takes over; that second close
    // would fail with ERR_SERVER_NOT_RUNNING and stall its exit, so it completes at once.
    server.close = ((callback?: (error?: Error) => void) => {
      callback?.();
      return server;
    }) as Server["close"];
  }
  const drained = await whenIdle(timeoutMs);
  log(drained ? "info" : "warn", drained ? "drained" : "drain timed out", {
    inFlight: state.inFlight,
  });
}
