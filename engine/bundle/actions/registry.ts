/**
 * The bundle actions of the installed protocols, by protocol slug and method name: each
 * protocol's folder declares them (`actions.ts`), and the engine's composition root
 * (`engine/index.ts`) installs them here. The methods a protocol lists in `/v1/standards` and
 * its actions are the same set (a test holds them to it): an action that is listed works, and
 * one that works is listed.
 */
import type { ActionSpec } from "./types.js";

/** What the bundle layer knows of a protocol: its slug and its actions by method. */
export type BundleProtocol = { slug: string; actions?: Record<string, ActionSpec> };

/** The installed protocols with bundle actions, in the order they were installed. */
const installed = new Map<string, BundleProtocol>();

/** Installs `protocol`'s actions (a protocol installed again replaces its earlier entry). */
export function installBundleProtocol(protocol: BundleProtocol): void {
  installed.set(protocol.slug, protocol);
}

/** The installed protocols, in installation order. */
export function bundleProtocols(): BundleProtocol[] {
  return [...installed.values()];
}

/** The actions of a protocol, keyed by method. */
export function protocolActions(protocol: BundleProtocol): Record<string, ActionSpec> {
  return protocol.actions ?? {};
}

/** The installed protocol of `slug`, if any. */
export function findBundleProtocol(slug: string): BundleProtocol | undefined {
  return installed.get(slug);
}
