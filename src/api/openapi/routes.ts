/**
 * `GET /v1/openapi.json` (the generated document) and `GET /docs` (an interactive reference:
 * Swagger UI from the `swagger-ui-dist` package, served from this API so it works offline).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";
import { compress } from "hono/compress";
import { z } from "zod";
import { handleNotFound } from "../errors.js";
import { generateOpenApiDocument, type OpenApiDocument, type OpenApiInfo } from "./document.js";
import { describeEndpoint } from "./registry.js";
import "./ponder-endpoints.js";
import "./shared-schemas.js";

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const DOCS_INIT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    tryItOutEnabled: true,
    validatorUrl: null,
  });
});
`;

/** Only this origin: the page must work without internet. Swagger UI sets inline styles. */
const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

let assetDir: string | undefined;
const assetCache = new Map<string, Uint8Array<ArrayBuffer>>();

/** A file of the swagger-ui-dist package, read once. */
function asset(name: string): Uint8Array<ArrayBuffer> {
  const cached = assetCache.get(name);
  if (cached !== undefined) return cached;
  assetDir ??= dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const bytes = new Uint8Array(readFileSync(join(assetDir, name)));
  assetCache.set(name, bytes);
  return bytes;
}

describeEndpoint({
  method: "get",
  path: "/v1/openapi.json",
  operationId: "getOpenApiDocument",
  tag: "operations",
  summary: "This OpenAPI document",
  description: "Served without an API key: the reference page at `/docs` reads it.",
  responses: {
    200: {
      description: "The OpenAPI 3.1 document of this API.",
      schema: z.object({ openapi: z.string() }).loose(),
    },
  },
});

describeEndpoint({
  method: "get",
  path: "/docs",
  operationId: "getDocsPage",
  tag: "operations",
  summary: "Interactive API reference",
  description: "A page listing every endpoint, with a form to try each one from the browser.",
  responses: { 200: { description: "The reference page.", contentType: "text/html" } },
});

/** The reference page and the document, as one sub-app mounted at the root. */
export function openApiRoutes(params: { info: OpenApiInfo }) {
  let document: OpenApiDocument | undefined;
  return new Hono()
    .get("/v1/openapi.json", (c) => {
      // Generated on first use: every endpoint module has registered by then.
      document ??= generateOpenApiDocument({
        info: params.info,
        tags: [
          { name: "catalogue", description: "Tokens, protocols and projects of the index." },
          { name: "shortcuts", description: "Routes and bundles as unsigned transactions." },
          {
            name: "wallet",
            description: "What a wallet sends before a route or bundle: the token approval.",
          },
          { name: "operations", description: "Health, metrics and this reference." },
          { name: "analytics", description: "The indexed tables, as Ponder serves them." },
        ],
      });
      return c.json(document);
    })
    .get("/docs", (c) =>
      c.html(DOCS_PAGE, 200, { "Content-Security-Policy": DOCS_CSP, "Cache-Control": "no-cache" }),
    )
    .get("/docs/init.js", (c) =>
      c.body(DOCS_INIT, 200, {
        "Content-Type": "text/javascript; charset=utf-8",
        "Cache-Control": "no-cache",
      }),
    )
    .use("/docs/swagger-ui*", compress())
    .get("/docs/:asset{(swagger-ui|favicon)[a-z0-9.-]*}", (c) => {
      const name = c.req.param("asset");
      const type = ASSETS[name];
      if (!type) return handleNotFound(c);
      return c.body(asset(name), 200, {
        "Content-Type": type,
        "Cache-Control": "public, max-age=86400",
      });
    });
}
