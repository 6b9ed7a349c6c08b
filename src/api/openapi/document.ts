/**
 * The OpenAPI 3.1 document, generated from the registry: endpoint parameters and bodies from
 * the zod schemas that validate them (input side), responses from the zod schemas of what is
 * serialized (output side), plus what each middleware adds to the paths it guards.
 */
import { z } from "zod";
import {
  describedEndpoints,
  describedMiddleware,
  type EndpointDescription,
  errorBodySchema,
  type HeaderDescription,
  type JsonSchema,
  type MiddlewareDescription,
  pathMatches,
  type ResponseDescription,
  schemaHint,
} from "./registry.js";

export type OpenApiInfo = { title: string; version: string; description: string };

export type OpenApiDocument = {
  openapi: "3.1.0";
  info: OpenApiInfo;
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, JsonSchema>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, JsonSchema>;
  };
};

const ERROR_REF = "#/components/schemas/Error";

type ZodDef = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  checks?: { _zod: { def: { check: string; error?: () => unknown } } }[];
  defaultValue?: unknown;
};

function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

/** The messages of a schema's `refine`s: they say in words what a value must be. */
function constraintsOf(schema: z.ZodType): string[] {
  const def = defOf(schema);
  const own = (def.checks ?? []).flatMap((check) => {
    if (check._zod.def.check !== "custom") return [];
    const message = check._zod.def.error?.();
    return typeof message === "string" ? [message.replace(/^expected /, "")] : [];
  });
  const inner = def.innerType ?? def.in ?? def.element;
  return inner ? [...own, ...constraintsOf(inner)] : own;
}

/** The outermost `.meta({ description })` of a schema or the schemas it wraps. */
function descriptionOf(schema: z.ZodType): string | undefined {
  const own = z.globalRegistry.get(schema)?.description;
  if (own) return own;
  const def = defOf(schema);
  const inner = def.innerType ?? def.in;
  return inner ? descriptionOf(inner) : undefined;
}

function jsonSafe(value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** Points `#/$defs/X` references at `#/components/schemas/<names[X]>`, everywhere in `value`. */
function rewriteRefs(value: unknown, names: Map<string, string>): void {
  if (Array.isArray(value)) {
    for (const item of value) rewriteRefs(item, names);
  } else if (value && typeof value === "object") {
    const object = value as JsonSchema;
    if (typeof object.$ref === "string" && object.$ref.startsWith("#/$defs/")) {
      const name = object.$ref.slice("#/$defs/".length);
      object.$ref = `#/components/schemas/${names.get(name) ?? name}`;
    }
    for (const child of Object.values(object)) rewriteRefs(child, names);
  }
}

/**
 * zod → JSON Schema 2020-12 (what OpenAPI 3.1 uses), with the registry's hints merged in.
 * Named (`.meta({ id })`) and recursive schemas land in `components` (schemas of the document).
 */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: "input" | "output",
  components: Record<string, JsonSchema> = {},
): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
    reused: "inline",
    override: (ctx) => {
      const zodSchema = ctx.zodSchema as unknown as z.ZodType;
      const out = ctx.jsonSchema as JsonSchema;
      // Nested error bodies point at the one in components (the top level is that one).
      if (zodSchema === errorBodySchema && ctx.path.length > 0) {
        for (const key of Object.keys(out)) delete out[key];
        out.$ref = ERROR_REF;
        return;
      }
      // zod bounds every integer by the safe range; that says nothing to a client.
      if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
      if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
      const hint = schemaHint(zodSchema);
      if (hint) Object.assign(out, hint);
      const def = defOf(zodSchema);
      // A default given after a transform is an output value; clients send its string form.
      if ((def.type === "default" || def.type === "prefault") && out.default === undefined) {
        const value =
          typeof def.defaultValue === "function"
            ? (def.defaultValue as () => unknown)()
            : def.defaultValue;
        out.default = jsonSafe(value);
      }
      if (out.description === undefined) {
        const constraints = constraintsOf(zodSchema);
        if (constraints.length > 0 && def.type !== "optional" && def.type !== "default") {
          out.description = `Must be ${constraints.join("; ")}.`;
        }
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  const defs = Object.entries((json.$defs ?? {}) as Record<string, JsonSchema>);
  delete json.$defs;
  // An `id` names one schema (zod's registry keeps ids unique), but zod numbers unnamed
  // recursive schemas from 0 in each conversion (`__schema0`): keep those distinct.
  const names = new Map<string, string>();
  for (const [name] of defs) {
    let unique = name;
    if (name.startsWith("__schema")) {
      for (let n = 2; unique in components; n++) unique = `${name}_${n}`;
    }
    names.set(name, unique);
    components[unique] = {};
  }
  for (const [name, def] of defs) {
    rewriteRefs(def, names);
    components[names.get(name) ?? name] = def;
  }
  rewriteRefs(json, names);
  return json;
}

function unwrapOptional(schema: z.ZodType): { schema: z.ZodType; optional: boolean } {
  const def = defOf(schema);
  if (
    (def.type === "optional" || def.type === "default" || def.type === "prefault") &&
    def.innerType
  ) {
    return { schema: def.innerType, optional: true };
  }
  return { schema, optional: false };
}

function isArray(schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (def.type === "array") return true;
  const inner = def.innerType ?? def.in;
  return inner ? isArray(inner) : false;
}

function parameters(
  where: "query" | "path",
  object: z.ZodObject | undefined,
  components: Record<string, JsonSchema>,
): JsonSchema[] {
  if (!object) return [];
  const asJson = jsonSchemaOf(object, "input", components);
  const properties = (asJson.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((asJson.required ?? []) as string[]);
  return Object.entries(object.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const schema = { ...(properties[name] ?? {}) };
    delete schema.description;
    if (schema.default !== undefined && schema.type === "string") {
      schema.default = String(schema.default);
    }
    const array = isArray(field);
    const constraints = constraintsOf(field);
    const description = [
      descriptionOf(field),
      constraints.length > 0 ? `Must be ${[...new Set(constraints)].join("; ")}.` : undefined,
      array
        ? `Repeat the parameter (\`${name}=a&${name}=b\`) or use \`${name}[]\` for several values.`
        : undefined,
    ]
      .filter((s) => s !== undefined)
      .join(" ");
    const meta = {
      ...z.globalRegistry.get(unwrapOptional(field).schema),
      ...z.globalRegistry.get(field),
    };
    const examples = meta.examples;
    return {
      name,
      in: where,
      required: where === "path" || (required.has(name) && !unwrapOptional(field).optional),
      ...(description ? { description } : {}),
      schema,
      ...(Array.isArray(examples) && examples[0] !== undefined ? { example: examples[0] } : {}),
      ...(array ? { style: "form", explode: true } : {}),
      ...(meta.deprecated ? { deprecated: true } : {}),
    };
  });
}

function headerObject(header: HeaderDescription): JsonSchema {
  return {
    description: header.description,
    ...(header.required ? { required: true } : {}),
    schema: header.schema ?? { type: "string" },
  };
}

function responseObject(
  response: ResponseDescription,
  extraHeaders: Record<string, HeaderDescription>,
  components: Record<string, JsonSchema>,
): JsonSchema {
  const headers = { ...extraHeaders, ...response.headers };
  const out: JsonSchema = { description: response.description };
  if (Object.keys(headers).length > 0) {
    out.headers = Object.fromEntries(
      Object.entries(headers).map(([name, h]) => [name, headerObject(h)]),
    );
  }
  const contentType = response.contentType ?? (response.schema ? "application/json" : undefined);
  if (contentType) {
    out.content = {
      [contentType]: {
        schema: response.schema
          ? response.schema === errorBodySchema
            ? { $ref: ERROR_REF }
            : jsonSchemaOf(response.schema, "output", components)
          : {},
      },
    };
  }
  return out;
}

/** Every response of an endpoint: its own, then the middleware's (descriptions joined). */
function responsesOf(
  endpoint: EndpointDescription,
  guards: MiddlewareDescription[],
  components: Record<string, JsonSchema>,
): Record<string, JsonSchema> {
  const merged = new Map<number, ResponseDescription>();
  const add = (status: number, response: ResponseDescription) => {
    const existing = merged.get(status);
    if (!existing) {
      merged.set(status, response);
      return;
    }
    merged.set(status, {
      ...existing,
      description: `${existing.description} ${response.description}`,
      headers: { ...existing.headers, ...response.headers },
    });
  };
  for (const [status, response] of Object.entries(endpoint.responses))
    add(Number(status), response);
  for (const guard of guards) {
    for (const [status, response] of Object.entries(guard.responses ?? {})) {
      add(Number(status), response);
    }
  }
  const everywhere: Record<string, HeaderDescription> = Object.assign(
    {},
    ...guards.map((g) => g.headers ?? {}),
  );
  return Object.fromEntries(
    [...merged.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, response]) => [
        String(status),
        responseObject(response, everywhere, components),
      ]),
  );
}

function guardsOf(endpoint: EndpointDescription): MiddlewareDescription[] {
  if (endpoint.served === "ponder") return [];
  return describedMiddleware().filter(
    (m) =>
      m.paths.some((p) => pathMatches(p, endpoint.path)) &&
      !(m.except ?? []).some((p) => pathMatches(p, endpoint.path)),
  );
}

/** The OpenAPI 3.1 document of every described endpoint. */
export function generateOpenApiDocument(params: {
  info: OpenApiInfo;
  tags?: { name: string; description?: string }[];
}): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  const schemas: Record<string, JsonSchema> = {};
  const tags = [...(params.tags ?? [])];
  for (const endpoint of describedEndpoints()) {
    if (!tags.some((t) => t.name === endpoint.tag)) tags.push({ name: endpoint.tag });
    const guards = guardsOf(endpoint);
    const operation: JsonSchema = {
      operationId: endpoint.operationId,
      tags: [endpoint.tag],
      summary: endpoint.summary,
      ...(endpoint.description ? { description: endpoint.description } : {}),
      ...(endpoint.deprecated ? { deprecated: true } : {}),
    };
    const parameterList = [
      ...parameters("path", endpoint.params, schemas),
      ...parameters("query", endpoint.query, schemas),
    ];
    if (parameterList.length > 0) operation.parameters = parameterList;
    if (endpoint.body) {
      operation.requestBody = {
        required: endpoint.body.required ?? true,
        ...(endpoint.body.description ? { description: endpoint.body.description } : {}),
        content: {
          "application/json": { schema: jsonSchemaOf(endpoint.body.schema, "input", schemas) },
        },
      };
    }
    operation.responses = responsesOf(endpoint, guards, schemas);
    if (guards.some((g) => g.bearerAuth)) operation.security = [{ bearerAuth: [] }];
    paths[endpoint.path] ??= {};
    (paths[endpoint.path] as Record<string, JsonSchema>)[endpoint.method] = operation;
  }
  return {
    openapi: "3.1.0",
    info: params.info,
    tags,
    paths,
    components: {
      schemas: { ...schemas, Error: jsonSchemaOf(errorBodySchema, "output", schemas) },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "An API key configured by the operator (`API_KEYS` or the keys file).",
        },
      },
    },
  };
}
