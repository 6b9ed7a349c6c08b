import { describe, expect, test } from "vitest";
import { z } from "zod";
import { generateOpenApiDocument } from "../../src/api/openapi/document.js";
import {
  describeEndpoint,
  describeMiddleware,
  describeSchema,
  errorResponse,
  type JsonSchema,
} from "../../src/api/openapi/registry.js";
import { addressParam, positiveIntParam } from "../../src/api/schemas.js";
import { contractViolations, type OpenApiDocumentLike } from "../harness/contract.js";

// An endpoint shaped like the route endpoint will be: defaults after transforms, arrays, enums.
const amount = z
  .string()
  .refine((v) => /^[0-9]+$/.test(v), { message: "expected an amount in wei" })
  .transform(BigInt);
const query = z.object({
  chainId: positiveIntParam("a chain id").optional().meta({ description: "Network id." }),
  fromAddress: addressParam.meta({ description: "Who sends the transaction." }),
  tokenIn: z.array(addressParam).min(1),
  amountIn: z.array(amount).min(1),
  routingStrategy: z.enum(["router", "delegate"]).default("router"),
  slippage: z
    .string()
    .refine((v) => /^[0-9]+$/.test(v), { message: "expected basis points" })
    .transform(Number)
    .default(300)
    .meta({ description: "Slippage in basis points.", examples: ["50"] }),
});
const result = z.object({
  amountOut: z.string(),
  blockNumber: z.number().int(),
  priceImpact: z.number().int().nullable(),
});

describeSchema(addressParam, { pattern: "^0x[0-9a-fA-F]{40}$" });
describeEndpoint({
  method: "get",
  path: "/v1/test/route",
  operationId: "testRoute",
  tag: "shortcuts",
  summary: "A route",
  query,
  responses: {
    200: { description: "The route.", schema: result },
    400: errorResponse("Invalid input."),
  },
});
describeEndpoint({
  method: "get",
  path: "/v1/test/items/{id}",
  operationId: "testItem",
  tag: "catalogue",
  summary: "An item",
  params: z.object({ id: z.string().meta({ description: "Item id." }) }),
  responses: { 200: { description: "The item.", contentType: "image/svg+xml" } },
});
describeMiddleware({
  name: "test-guard",
  paths: ["/v1/test/*"],
  except: ["/v1/test/items/{id}"],
  bearerAuth: true,
  headers: { "X-Trace": { description: "Trace id.", required: true } },
  responses: {
    400: errorResponse("Or the guard refused it."),
    429: errorResponse("Slow down.", {
      "Retry-After": { description: "Seconds.", required: true },
    }),
  },
});

// Recursive schemas (zod names them `__schema0` in every conversion) and named ones.
type Tree = { name: string; children: Tree[] };
const tree: z.ZodType<Tree> = z.object({
  name: z.string(),
  get children() {
    return z.array(tree);
  },
});
const other: z.ZodType<Tree> = z.object({
  name: z.literal("other"),
  get children() {
    return z.array(other);
  },
});
const named = z.object({ label: z.string() }).meta({ id: "Label" });
describeEndpoint({
  method: "post",
  path: "/v1/test/trees",
  operationId: "testTrees",
  tag: "catalogue",
  summary: "Trees",
  body: { schema: z.object({ tree, label: named }) },
  responses: {
    200: { description: "Trees.", schema: z.object({ other, labels: z.array(named) }) },
  },
});

const info = { title: "Test", version: "1.0.0", description: "Test API." };
const ERROR = { $ref: "#/components/schemas/Error" };

describe("OpenAPI document", () => {
  const document = generateOpenApiDocument({ info });

  test("parameters come from the validating zod schema: required, defaults, arrays, constraints", () => {
    expect(document.paths["/v1/test/route"]?.get?.parameters).toEqual([
      {
        name: "chainId",
        in: "query",
        required: false,
        description: "Network id. Must be a chain id: a whole number from 1 to 9007199254740991.",
        schema: { type: "string" },
      },
      {
        name: "fromAddress",
        in: "query",
        required: true,
        description:
          "Who sends the transaction. Must be an address (0x followed by 40 hex digits).",
        schema: { type: "string", pattern: "^0x[0-9a-fA-F]{40}$" },
      },
      {
        name: "tokenIn",
        in: "query",
        required: true,
        description:
          "Must be an address (0x followed by 40 hex digits). Repeat the parameter (`tokenIn=a&tokenIn=b`) or use `tokenIn[]` for several values.",
        schema: {
          type: "array",
          minItems: 1,
          items: {
            type: "string",
            pattern: "^0x[0-9a-fA-F]{40}$",
            description: "Must be an address (0x followed by 40 hex digits).",
          },
        },
        style: "form",
        explode: true,
      },
      {
        name: "amountIn",
        in: "query",
        required: true,
        description:
          "Must be an amount in wei. Repeat the parameter (`amountIn=a&amountIn=b`) or use `amountIn[]` for several values.",
        schema: {
          type: "array",
          minItems: 1,
          items: { type: "string", description: "Must be an amount in wei." },
        },
        style: "form",
        explode: true,
      },
      {
        name: "routingStrategy",
        in: "query",
        required: false,
        schema: { type: "string", enum: ["router", "delegate"], default: "router" },
      },
      {
        name: "slippage",
        in: "query",
        required: false,
        description: "Slippage in basis points. Must be basis points.",
        schema: { type: "string", default: "300" },
        example: "50",
      },
    ]);
  });

  test("responses: the endpoint's own, then each guard's, with the guards' headers", () => {
    const trace = {
      "X-Trace": { description: "Trace id.", required: true, schema: { type: "string" } },
    };
    expect(document.paths["/v1/test/route"]?.get).toEqual({
      operationId: "testRoute",
      tags: ["shortcuts"],
      summary: "A route",
      parameters: document.paths["/v1/test/route"]?.get?.parameters,
      security: [{ bearerAuth: [] }],
      responses: {
        "200": {
          description: "The route.",
          headers: trace,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  amountOut: { type: "string" },
                  blockNumber: { type: "integer" },
                  priceImpact: { type: ["integer", "null"] },
                },
                required: ["amountOut", "blockNumber", "priceImpact"],
                additionalProperties: false,
              },
            },
          },
        },
        "400": {
          description: "Invalid input. Or the guard refused it.",
          headers: trace,
          content: { "application/json": { schema: ERROR } },
        },
        "429": {
          description: "Slow down.",
          headers: {
            ...trace,
            "Retry-After": { description: "Seconds.", required: true, schema: { type: "string" } },
          },
          content: { "application/json": { schema: ERROR } },
        },
      },
    });
    // Excepted from the guard: no security, no guard responses.
    expect(document.paths["/v1/test/items/{id}"]?.get).toEqual({
      operationId: "testItem",
      tags: ["catalogue"],
      summary: "An item",
      parameters: [
        {
          name: "id",
          in: "path",
          required: true,
          description: "Item id.",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": { description: "The item.", content: { "image/svg+xml": { schema: {} } } },
      },
    });
    expect(document.components.schemas.Error).toEqual({
      type: "object",
      properties: {
        statusCode: { type: "integer", description: "The HTTP status code, repeated." },
        error: { type: "string", description: "The status code's reason phrase." },
        message: { type: "string", description: "One sentence saying what went wrong." },
        details: {
          type: "object",
          propertyNames: { type: "string" },
          additionalProperties: {},
          description: "Structured facts about the error, when there are any.",
        },
      },
      required: ["statusCode", "error", "message"],
      additionalProperties: false,
    });
  });
});

describe("shared and recursive schemas", () => {
  test("land in components, each under its own name, referenced from the operation", () => {
    const document = generateOpenApiDocument({ info });
    const op = document.paths["/v1/test/trees"]?.post as {
      requestBody: { content: { "application/json": { schema: unknown } } };
      responses: { "200": { content: { "application/json": { schema: unknown } } } };
    };
    expect(op.requestBody.content["application/json"].schema).toEqual({
      type: "object",
      properties: {
        tree: { $ref: "#/components/schemas/__schema0" },
        label: { $ref: "#/components/schemas/Label" },
      },
      required: ["tree", "label"],
    });
    expect(op.responses["200"].content["application/json"].schema).toEqual({
      type: "object",
      properties: {
        other: { $ref: "#/components/schemas/__schema0_2" },
        labels: { type: "array", items: { $ref: "#/components/schemas/Label" } },
      },
      required: ["other", "labels"],
      additionalProperties: false,
    });
    const node = (name: JsonSchema, ref: string, closed: boolean) => ({
      type: "object",
      properties: { name, children: { type: "array", items: { $ref: ref } } },
      required: ["name", "children"],
      ...(closed ? { additionalProperties: false } : {}),
    });
    expect(document.components.schemas.__schema0).toEqual(
      node({ type: "string" }, "#/components/schemas/__schema0", false),
    );
    expect(document.components.schemas.__schema0_2).toEqual(
      node({ type: "string", const: "other" }, "#/components/schemas/__schema0_2", true),
    );
    expect(document.components.schemas.Label).toMatchObject({
      type: "object",
      properties: { label: { type: "string" } },
    });

    const tree = (name: string, child = name): unknown => ({
      name,
      children: [{ name: child, children: [] }],
    });
    const response = (body: unknown) => ({
      method: "POST",
      url: "http://127.0.0.1:1/v1/test/trees",
      status: 200,
      headers: { "content-type": "application/json", "x-trace": "t" },
      body: JSON.stringify(body),
    });
    expect(
      contractViolations(document as unknown as OpenApiDocumentLike, [
        response({ other: tree("other"), labels: [{ label: "a" }] }),
        response({ other: tree("else"), labels: [] }),
        response({ other: tree("other", "nested"), labels: [] }),
      ]),
    ).toEqual([
      "POST /v1/test/trees → 200: body/other/name must be equal to constant",
      "POST /v1/test/trees → 200: body/other/children/0/name must be equal to constant",
    ]);
  });
});

describe("contract check", () => {
  const document = generateOpenApiDocument({ info }) as unknown as OpenApiDocumentLike;
  const base = "http://127.0.0.1:1";
  const json = { "content-type": "application/json", "x-trace": "t" };
  const ok = {
    method: "GET",
    url: `${base}/v1/test/route?fromAddress=0x`,
    status: 200,
    headers: json,
    body: JSON.stringify({ amountOut: "1", blockNumber: 7, priceImpact: null }),
  };

  test("passes responses that match and names every mismatch", () => {
    expect(contractViolations(document, [ok])).toEqual([]);
    expect(
      contractViolations(document, [
        { ...ok, body: JSON.stringify({ amountOut: 1, blockNumber: 7, priceImpact: null }) },
        {
          ...ok,
          body: JSON.stringify({ amountOut: "1", blockNumber: 7, priceImpact: null, x: 1 }),
        },
        { ...ok, headers: { "content-type": "application/json" } },
        { ...ok, status: 500, body: "{}" },
        {
          ...ok,
          status: 429,
          headers: json,
          body: JSON.stringify({ statusCode: 429, error: "Too Many Requests", message: "m" }),
        },
        { ...ok, status: 400, headers: { ...json, "content-type": "text/plain" }, body: "no" },
        { ...ok, url: `${base}/v1/unknown`, status: 200, body: "{}" },
        {
          ...ok,
          url: `${base}/v1/unknown`,
          status: 404,
          body: JSON.stringify({ statusCode: 404, error: "Not Found" }),
        },
        { ...ok, body: "", unreadable: "its body did not end within 15 s" },
      ]),
    ).toEqual([
      "GET /v1/test/route → 200: body/amountOut must be string",
      "GET /v1/test/route → 200: body must NOT have additional properties",
      "GET /v1/test/route → 200: required header X-Trace is missing",
      "GET /v1/test/route → 500: status 500 is not documented for GET /v1/test/route",
      "GET /v1/test/route → 429: required header Retry-After is missing",
      "GET /v1/test/route → 400: content type text/plain is not among application/json",
      "GET /v1/unknown → 200: the document has no GET /v1/unknown; describe it with describeEndpoint() (src/api/openapi/registry.ts)",
      "GET /v1/unknown → 404: body must have required property 'message'",
      "GET /v1/test/route → 200: its body did not end within 15 s",
    ]);
  });
});
