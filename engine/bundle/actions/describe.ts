/**
 * The bundle actions as clients read them (`GET /v1/actions`): each argument with its type,
 * what to pass, and whether it may be left out — derived from the same schemas that check a
 * bundle, and the same descriptions `/v1/standards` lists.
 */
import type { z } from "zod";
import { addressArg, amountArg, bpsArg } from "./args.js";
import { type BundleProtocol, protocolActions } from "./registry.js";

export type ActionInput = { type: string; description: string; optional: boolean };

export type ActionDescription = {
  protocol: string;
  action: string;
  name: string;
  inputs: Record<string, ActionInput>;
};

/** The schema inside `.optional()` and `.default()`. */
function unwrapped(schema: z.ZodType): z.ZodType {
  const def = schema.def as { type: string; innerType?: z.ZodType };
  return (def.type === "optional" || def.type === "default") && def.innerType
    ? unwrapped(def.innerType)
    : schema;
}

/** A short type name: `address`, `amount` (wei or an output reference), `bps`, `address[]`… */
function typeOf(schema: z.ZodType): string {
  const inner = unwrapped(schema);
  if (inner === addressArg) return "address";
  if (inner === amountArg) return "amount";
  if (inner === bpsArg) return "bps";
  const def = inner.def as { type: string; element?: z.ZodType; options?: z.ZodType[] };
  if (def.type === "array" && def.element) return `${typeOf(def.element)}[]`;
  if (def.type === "union" && def.options) return def.options.map(typeOf).join(" | ");
  return def.type;
}

/** A protocol as its actions are described: its bundle actions and the methods it lists. */
export type DescribedProtocol = BundleProtocol & {
  methods: readonly { method: string; name: string; inputs: Record<string, string> }[];
};

/** Every action of `protocol`, in the order of its methods. */
export function describeActions(protocol: DescribedProtocol): ActionDescription[] {
  const actions = protocolActions(protocol);
  return protocol.methods.flatMap((method) => {
    const spec = actions[method.method];
    if (!spec) return [];
    const shape = spec.args.shape as Record<string, z.ZodType>;
    const inputs: Record<string, ActionInput> = {};
    for (const [name, schema] of Object.entries(shape)) {
      inputs[name] = {
        type: typeOf(schema),
        description: method.inputs[name] ?? "",
        // Optional and defaulted arguments accept their absence.
        optional: schema.safeParse(undefined).success,
      };
    }
    return [{ protocol: protocol.slug, action: method.method, name: method.name, inputs }];
  });
}
