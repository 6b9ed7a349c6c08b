/**
 * The OpenAPI contract of every suite: the harness records each response a suite receives
 * from a service it started (through `fetch`, or a browser page), and when the service stops
 * checks them all against the OpenAPI document that service serves at `/v1/openapi.json`.
 */
import { Ajv2020 } from "ajv/dist/2020.js";

export type RecordedResponse = {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Why the body could not be read, when it could not: a violation, never left out. */
  unreadable?: string;
};

type JsonObject = { [key: string]: unknown };

export type OpenApiDocumentLike = {
  paths: Record<string, Record<string, JsonObject>>;
  components?: JsonObject;
};

const recordings = new Map<string, Promise<RecordedResponse>[]>();
let originalFetch: typeof fetch | undefined;

function requestLine(input: Parameters<typeof fetch>[0], init?: RequestInit) {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  return { url, method };
}

function baseOf(url: string): string | undefined {
  for (const base of recordings.keys()) if (url === base || url.startsWith(`${base}/`)) return base;
  return undefined;
}

/**
 * Reads a copy of a response's body, giving up after 15 s on one that never ends; a body that
 * cannot be read is recorded as such (a violation), not left out.
 */
async function snapshot(method: string, url: string, res: Response): Promise<RecordedResponse> {
  const headers = Object.fromEntries([...res.headers.entries()]);
  const record = { method, url, status: res.status, headers, body: "" };
  try {
    const body = await Promise.race([
      res.text(),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000).unref()),
    ]);
    if (body === undefined) return { ...record, unreadable: "its body did not end within 15 s" };
    return { ...record, body };
  } catch (error) {
    return { ...record, unreadable: `its body could not be read: ${(error as Error).message}` };
  }
}

/** Adds a response seen elsewhere (a browser page) to the recordings of its service. */
export function recordResponse(response: RecordedResponse): void {
  const base = baseOf(response.url);
  if (base) recordings.get(base)?.push(Promise.resolve(response));
}

/**
 * Starts recording the responses from `baseUrl` (wrapping the global `fetch` once per test
 * file). Streams (`text/event-stream`) and the SQL-over-HTTP protocol are left out.
 */
export function recordResponsesOf(baseUrl: string): void {
  if (!recordings.has(baseUrl)) recordings.set(baseUrl, []);
  if (originalFetch) return;
  const inner = globalThis.fetch;
  originalFetch = inner;
  globalThis.fetch = async (input, init) => {
    const res = await inner(input, init);
    const { url, method } = requestLine(input, init);
    const base = baseOf(url);
    const path = new URL(url).pathname;
    if (
      base &&
      method !== "HEAD" &&
      method !== "OPTIONS" &&
      !path.startsWith("/sql/") &&
      !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ) {
      recordings.get(base)?.push(snapshot(method, url, res.clone()));
    }
    return res;
  };
}

/** The recorded responses of `baseUrl` so far, and forgets them. */
export async function takeRecordings(baseUrl: string): Promise<RecordedResponse[]> {
  const pending = recordings.get(baseUrl) ?? [];
  recordings.delete(baseUrl);
  return await Promise.all(pending);
}

function templateRegex(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`);
}

function pointer(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

/**
 * Checks responses against the document; returns one line per violation. Paths under `/v1/`
 * the document does not list (or methods it does not list) must be the JSON 404.
 */
export function contractViolations(
  document: OpenApiDocumentLike,
  responses: readonly RecordedResponse[],
): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema(document, "openapi");
  const templates = Object.keys(document.paths)
    .map((t) => ({ template: t, regex: templateRegex(t), literal: !t.includes("{") }))
    // A literal path wins over a template matching the same path.
    .sort((a, b) => Number(b.literal) - Number(a.literal));
  const validators = new Map<string, ReturnType<typeof ajv.getSchema>>();
  const validate = (ref: string, value: unknown): string | undefined => {
    let check = validators.get(ref);
    if (!check) {
      check = ajv.compile({ $ref: `openapi#/${ref}` });
      validators.set(ref, check);
    }
    if (check?.(value)) return undefined;
    return ajv.errorsText(check?.errors, { dataVar: "body" });
  };
  const violations: string[] = [];
  for (const r of responses) {
    const path = new URL(r.url).pathname;
    const where = `${r.method} ${path} → ${r.status}`;
    if (r.unreadable !== undefined) {
      violations.push(`${where}: ${r.unreadable}`);
      continue;
    }
    const template = templates.find((t) => t.regex.test(path))?.template;
    const operation = template ? document.paths[template]?.[r.method.toLowerCase()] : undefined;
    const contentType = (r.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
    if (!template || !operation) {
      if (!path.startsWith("/v1/") && !(template && !operation)) continue;
      // The catch-all JSON 404 of an unknown path or method.
      if (r.status !== 404 || contentType !== "application/json") {
        violations.push(
          `${where}: the document has no ${r.method} ${path}; describe it with describeEndpoint() (src/api/openapi/registry.ts)`,
        );
        continue;
      }
      const error = validate("components/schemas/Error", JSON.parse(r.body));
      if (error) violations.push(`${where}: ${error}`);
      continue;
    }
    const responses = operation.responses as Record<string, JsonObject>;
    const status = String(r.status);
    const response = responses[status] ?? responses.default;
    if (!response) {
      violations.push(`${where}: status ${status} is not documented for ${r.method} ${template}`);
      continue;
    }
    for (const [name, header] of Object.entries(
      (response.headers ?? {}) as Record<string, JsonObject>,
    )) {
      if (header.required && r.headers[name.toLowerCase()] === undefined) {
        violations.push(`${where}: required header ${name} is missing`);
      }
    }
    const content = response.content as Record<string, JsonObject> | undefined;
    if (!content) {
      if (r.body !== "") violations.push(`${where}: a body was sent but none is documented`);
      continue;
    }
    if (!content[contentType]) {
      violations.push(
        `${where}: content type ${contentType || "(none)"} is not among ${Object.keys(content).join(", ")}`,
      );
      continue;
    }
    if (contentType !== "application/json") continue;
    let body: unknown;
    try {
      body = JSON.parse(r.body);
    } catch {
      violations.push(`${where}: the body is not JSON`);
      continue;
    }
    const ref = pointer(
      "paths",
      template,
      r.method.toLowerCase(),
      "responses",
      status in responses ? status : "default",
      "content",
      contentType,
      "schema",
    );
    const error = validate(ref, body);
    if (error) violations.push(`${where}: ${error}`);
  }
  return violations;
}
