import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiKey } from "./auth.js";

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
