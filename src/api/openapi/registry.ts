/**
 * What the OpenAPI document is generated from. Each endpoint file describes its endpoints
 * next to their handlers, with the very zod schemas that validate their requests; each
 * middleware describes the responses and headers it adds to the paths it guards. The
 * generator (document.ts) reads only this registry.
 */
import { z } from "zod";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** A JSON Schema fragment written by hand (for what zod does not describe, e.g. headers). */
export type JsonSchema = { [key: string]: unknown };

export type HeaderDescription = { description: string; schema?: JsonSchema; required?: boolean };

export type ResponseDescription = {
  description: string;
  /** The body's schema (as serialized: the output side of the zod schema). */
  schema?: z.ZodType;
  /** Defaults to `application/json` when `schema` is set. */
  contentType?: string;
  headers?: Record<string, HeaderDescription>;
};

export type EndpointDescription = {
  method: HttpMethod;
  /** OpenAPI path template: `/v1/standards/{slug}`. */
  path: string;
  operationId: string;
  /** The group the endpoint is listed under. */
  tag: string;
  summary: string;
  description?: string;
  /**
   * The object schema `parseQuery` validates the query with. Array fields accept repeats and
   * the `name[]` form; `.meta({ description, examples })` on a field documents it.
   */
  query?: z.ZodObject;
  /** One string field per `{name}` of the path. */
  params?: z.ZodObject;
  /** JSON request body, validated by `schema`. */
  body?: { schema: z.ZodType; description?: string; required?: boolean };
  /** Every status the endpoint itself answers; middleware adds theirs (401, 429, 503…). */
  responses: Record<number, ResponseDescription>;
  /** Answered by the API app (true) or by Ponder before the app is asked (false). */
  served?: "api" | "ponder";
  deprecated?: boolean;
};

export type MiddlewareDescription = {
  /** Names the middleware; describing the same name again replaces the description. */
  name: string;
  /** Path templates it guards; a trailing `*` matches any rest (`/v1/*`). */
  paths: readonly string[];
  /** Templates under `paths` it leaves alone. */
  except?: readonly string[];
  /** Responses it may answer instead of the endpoint. */
  responses?: Record<number, ResponseDescription>;
  /** Headers it adds to every response of the paths it guards. */
  headers?: Record<string, HeaderDescription>;
  /** It requires `Authorization: Bearer <key>`. */
  bearerAuth?: boolean;
};

/** The body of every non-2xx answer (errors.ts `ErrorBody`). */
export const errorBodySchema = z.object({
  statusCode: z.number().int().meta({ description: "The HTTP status code, repeated." }),
  error: z.string().meta({ description: "The status code's reason phrase." }),
  message: z.string().meta({ description: "One sentence saying what went wrong." }),
  details: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: "Structured facts about the error, when there are any." }),
});

/** A response whose body is the JSON error body. */
export function errorResponse(
  description: string,
  headers?: Record<string, HeaderDescription>,
): ResponseDescription {
  return { description, schema: errorBodySchema, ...(headers ? { headers } : {}) };
}

const endpoints = new Map<string, EndpointDescription>();
const middleware = new Map<string, MiddlewareDescription>();
const schemaHints = z.registry<JsonSchema>();

/**
 * Adds an endpoint to the OpenAPI document (describing it again replaces it, so a module
 * that is evaluated twice does not list it twice). Returns the description.
 */
export function describeEndpoint<E extends EndpointDescription>(endpoint: E): E {
  endpoints.set(`${endpoint.method} ${endpoint.path}`, endpoint);
  return endpoint;
}

/** Adds what a middleware answers or adds to the paths it guards. */
export function describeMiddleware(description: MiddlewareDescription): void {
  middleware.set(description.name, description);
}

/**
 * JSON Schema keywords for a shared zod schema that zod cannot express itself (a `refine`d
 * pattern, say): merged into every place the schema appears.
 */
export function describeSchema(schema: z.ZodType, hint: JsonSchema): void {
  if (schemaHints.has(schema)) schemaHints.remove(schema);
  schemaHints.add(schema, hint);
}

export function describedEndpoints(): EndpointDescription[] {
  return [...endpoints.values()];
}

export function describedMiddleware(): MiddlewareDescription[] {
  return [...middleware.values()];
}

export function schemaHint(schema: z.ZodType): JsonSchema | undefined {
  return schemaHints.get(schema);
}

/** Whether `path` (a template) is matched by `pattern` (a template, maybe ending in `*`). */
export function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith("*") ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}
