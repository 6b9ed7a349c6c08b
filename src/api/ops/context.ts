import type { IncomingMessage, ServerResponse } from "node:http";

/** A configured API key, as the rest of the API sees it: never the key itself. */
export type ApiKey = {
  /** Shown in logs and metrics: the keys file's `name`, or `key-` + 8 hex of the key's hash. */
  name: string;
  /** Its budget: sustained requests per second (0: unlimited) and burst. */
  rps: number;
  burst: number;
};

/**
 * What the ops middleware keeps on a request's Hono context. Under Ponder the bindings are
 * the Node request and response of `@hono/node-server`; under `app.request()` they are absent.
 */
export type OpsEnv = {
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse };
  Variables: {
    /** The request's id, also sent back as `X-Request-Id`. */
    requestId: string;
    /** The caller's API key when keys are configured. */
    apiKey?: ApiKey;
  };
};
