import { describe, expect, test } from "vitest";
import type { z } from "zod";
import { protocolActions } from "../../engine/bundle/actions/registry.js";
import { protocols } from "../../engine/index.js";

describe("bundle actions and /v1/standards methods", () => {
  test.each(protocols.map((p) => [p.slug, p] as const))(
    "%s lists exactly the actions that work",
    (_slug, protocol) => {
      const actions = protocolActions(protocol);
      expect(protocol.methods.map((m) => m.method).sort()).toEqual(Object.keys(actions).sort());
      for (const method of protocol.methods) {
        const spec = actions[method.method];
        if (!spec) throw new Error(`${protocol.slug} ${method.method} has no action`);
        const shape = (spec.args as unknown as z.ZodObject).shape as Record<string, unknown>;
        // Every documented input is an argument the action accepts, and the other way round.
        expect({ method: method.method, inputs: Object.keys(method.inputs).sort() }).toEqual({
          method: method.method,
          inputs: Object.keys(shape).sort(),
        });
      }
    },
  );
});
