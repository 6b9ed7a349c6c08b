import { installBundleProtocol } from "../bundle/actions/registry.js";
import { DuplicateProtocolError } from "../core/errors.js";
import type { Pool } from "../core/types.js";
import { installHopSteps } from "../program/hop-steps.js";
import { installPoolModel } from "../routing/pool-model.js";
import type { PoolKind } from "./pool-kind.js";
import type { Protocol } from "./types.js";

/**
 * Every installed protocol, in the order installed: `engine/index.ts` installs the built-in
 * ones when it is loaded, `createEngine` the ones a caller adds.
 */
const installed: Protocol[] = [];

/** Every protocol the engine knows, in the order they were installed. */
export const protocols: readonly Protocol[] = installed;

/**
 * Installs `protocol` in each layer that needs it: its pool model in the routing layer, its
 * hop steps in the program layer, its actions in the bundle layer. The same protocol installed
 * again is kept once; another protocol of a slug already installed is refused.
 */
export function installProtocol(protocol: Protocol): void {
  if (installed.includes(protocol)) return;
  if (installed.some((p) => p.slug === protocol.slug)) {
    throw new DuplicateProtocolError(protocol.slug);
  }
  if (protocol.poolKind) {
    // Each kind's implementation only ever receives pools of its own kind (dispatch by `kind`).
    const kind = protocol.poolKind as unknown as PoolKind<Pool>;
    installPoolModel(protocol.slug, kind);
    installHopSteps(kind);
  }
  installBundleProtocol(protocol);
  installed.push(protocol);
}

export function findProtocol(slug: string): Protocol | undefined {
  return protocols.find((p) => p.slug === slug);
}
