import { BundleProtocols } from "../bundle/actions/registry.js";
import { DuplicateProtocolError } from "../core/errors.js";
import type { Pool } from "../core/types.js";
import { HopStepsTable } from "../program/hop-steps.js";
import { PoolModels } from "../routing/pool-model.js";
import type { PoolKind } from "./pool-kind.js";
import type { Protocol } from "./types.js";

/**
 * One engine's protocols, in the order installed, and the table each layer is given of them:
 * the pool models a routing graph is built with, the hop steps the program compilers use, the
 * actions the bundle compiler knows. Each engine (`createEngine`) has its own: a protocol
 * installed in one is unknown to every other.
 */
export class ProtocolRegistry {
  readonly #installed: Protocol[] = [];
  /** Every protocol installed, in order. */
  readonly protocols: readonly Protocol[] = this.#installed;
  readonly models = new PoolModels();
  readonly steps = new HopStepsTable();
  readonly bundles = new BundleProtocols();

  /**
   * Installs `protocol` in each table that needs it: its pool model for routing, its hop steps
   * for programs, its actions for bundles. The same protocol installed again is kept once.
   * @throws DuplicateProtocolError for another protocol of a slug already installed;
   * PoolKindConflictError for a pool kind another protocol already implements differently.
   */
  install(protocol: Protocol): void {
    if (this.#installed.includes(protocol)) return;
    if (this.#installed.some((p) => p.slug === protocol.slug)) {
      throw new DuplicateProtocolError(protocol.slug);
    }
    if (protocol.poolKind) {
      // Each kind's implementation only ever receives pools of its own kind (dispatch by `kind`).
      const kind = protocol.poolKind as unknown as PoolKind<Pool>;
      this.models.install(protocol.slug, kind);
      this.steps.install(kind);
    }
    this.bundles.install(protocol);
    this.#installed.push(protocol);
  }

  /** The installed protocol of `slug`, if any. */
  find(slug: string): Protocol | undefined {
    return this.#installed.find((p) => p.slug === slug);
  }
}
