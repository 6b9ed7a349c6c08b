import type { z } from "zod";
import { ApiError } from "./errors.js";

/**
 * Collects query parameters, folding the bracket form (`name[]=a&name[]=b`, also sent
 * percent-encoded) into `name`. Every parameter keeps all its values, in order.
 */
export function collectQuery(url: string): Map<string, string[]> {
  const params = new URL(url).searchParams;
  const out = new Map<string, string[]>();
  for (const [rawKey, value] of params) {
    const key = rawKey.endsWith("[]") ? rawKey.slice(0, -2) : rawKey;
    const list = out.get(key) ?? [];
    list.push(value);
    out.set(key, list);
  }
  return out;
}

/** Whether a query field takes several values: an array, possibly optional or defaulted. */
function isArrayField(field: z.core.$ZodType): boolean {
  const def = field._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
  if (def.type === "array") return true;
  const inner = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
  return inner !== undefined && isArrayField(inner);
}

type QueryParameters = { arrays: Set<string>; scalars: Set<string>; known: string[] };

/** Each schema's parameters, read from it once (every request of its endpoint asks). */
const parameters = new WeakMap<z.ZodObject, QueryParameters>();

function parametersOf(schema: z.ZodObject): QueryParameters {
  let found = parameters.get(schema);
  if (!found) {
    const fields = Object.entries(schema.shape);
    const arrays = fields.filter(([, f]) => isArrayField(f)).map(([name]) => name);
    const scalars = fields.filter(([, f]) => !isArrayField(f)).map(([name]) => name);
    found = { arrays: new Set(arrays), scalars: new Set(scalars), known: [...scalars, ...arrays] };
    parameters.set(schema, found);
  }
  return found;
}

/**
 * Turns a request's query into a plain object checked against `schema`, the one description
 * of the endpoint's parameters: its array fields accept repeats (and the `name[]` form), every
 * other field is a scalar. Unknown parameters and repeated scalars are 400s naming the parameter.
 */
export function parseQuery<S extends z.ZodObject>(url: string, schema: S): z.output<S> {
  const { arrays, scalars, known } = parametersOf(schema);
  const query = collectQuery(url);
  const raw: Record<string, string | string[]> = {};
  for (const [key, values] of query) {
    if (arrays.has(key)) {
      raw[key] = values;
    } else if (scalars.has(key)) {
      if (values.length > 1) {
        throw new ApiError(
          400,
          `Query parameter \`${key}\` must be given once; it was given ${values.length} times.`,
        );
      }
      raw[key] = values[0] ?? "";
    } else {
      throw new ApiError(
        400,
        known.length > 0
          ? `Unknown query parameter \`${key}\`; accepted: ${known.join(", ")}.`
          : `Unknown query parameter \`${key}\`; this endpoint takes no query parameters.`,
      );
    }
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue?.path.map(String).join(".") ?? "";
    const name = path.split(".")[0] ?? path;
    if (raw[name] === undefined)
      throw new ApiError(400, `Query parameter \`${name}\` is required.`);
    throw new ApiError(
      400,
      `Invalid query parameter \`${name}\`: ${issue?.message ?? "invalid value"}.`,
    );
  }
  return result.data;
}
