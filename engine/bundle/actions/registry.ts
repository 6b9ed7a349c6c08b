/**
 * The bundle actions of the installed protocols, by protocol slug and method name: each
 * protocol's folder declares them (`actions.ts`), and an engine (`engine/index.ts`) installs
 * them in the table its bundle compiler is given. The methods a protocol lists in `/v1/standards` and
 * its actions are the same set (a test holds them to it): an action that is listed works, and
 * one that works is listed.
 */
import type { ActionSpec } from "./types.js";

/** What the bundle layer knows of a protocol: its slug and its actions by method. */
export type BundleProtocol = { slug: string; actions?: Record<string, ActionSpec> };

/** The protocols whose actions a bundle compiler is given, by slug, in installation order. */
export class BundleProtocols {
  readonly #installed = new Map<string, BundleProtocol>();

  /** Installs `protocol`'s actions (a protocol installed again replaces its earlier entry). */
  install(protocol: BundleProtocol): void {
    this.#installed.set(protocol.slug, protocol);
  }

  /** The installed protocols, in installation order. */
  list(): BundleProtocol[] {
    return [...this.#installed.values()];
  }

  /** The installed protocol of `slug`, if any. */
  find(slug: string): BundleProtocol | undefined {
    return this.#installed.get(slug);
  }
}

/** The actions of a protocol, keyed by method. */
export function protocolActions(protocol: BundleProtocol): Record<string, ActionSpec> {
  return protocol.actions ?? {};
}
