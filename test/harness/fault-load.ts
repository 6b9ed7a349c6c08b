/**
 * A handful of clients requesting in a loop while a fault is injected, every answer recorded
 * with when it was asked and answered, for assertions over time windows.
 */

export type LoadRequest = {
  /** Name the assertions use. */
  name: string;
  path: string;
  method?: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
};

export type LoadAnswer = {
  name: string;
  /** `performance.now()` when sent and when the whole body was read. */
  sentAt: number;
  doneAt: number;
  /** HTTP status; 0 when there was no answer within `hangMs` or the connection failed. */
  status: number;
  /** Parsed JSON body, or the error text when there was no answer. */
  body: unknown;
};

export type Load = {
  answers: LoadAnswer[];
  /** Stops the clients and waits for their requests in flight. */
  stop: () => Promise<LoadAnswer[]>;
};

/**
 * Starts `clients` loops, each sending `requests` in turn (offset per client) to `baseUrl`
 * until stopped. A request without an answer after `hangMs` is aborted and recorded as status 0.
 */
export function startLoad(params: {
  baseUrl: string;
  requests: LoadRequest[];
  clients: number;
  hangMs: number;
}): Load {
  const answers: LoadAnswer[] = [];
  let stopped = false;
  const loop = async (client: number) => {
    for (let i = client; !stopped; i++) {
      const request = params.requests[i % params.requests.length];
      if (!request) throw new Error("no requests to send");
      const sentAt = performance.now();
      let status = 0;
      let body: unknown;
      try {
        const res = await fetch(`${params.baseUrl}${request.path}`, {
          method: request.method ?? "GET",
          headers: request.body
            ? { "content-type": "application/json", ...request.headers }
            : request.headers,
          body: request.body,
          signal: AbortSignal.timeout(params.hangMs),
        });
        const text = await res.text();
        status = res.status;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      } catch (error) {
        body = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      answers.push({ name: request.name, sentAt, doneAt: performance.now(), status, body });
    }
  };
  const loops = Array.from({ length: params.clients }, (_, i) => loop(i));
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return answers;
    },
  };
}
