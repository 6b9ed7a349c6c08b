/**
 * The bundle actions of every protocol in `engine/protocols/registry.ts`, by method name: each
 * protocol's folder declares them (`actions.ts`). The methods a protocol lists in
 * `/v1/standards` and its actions are the same set (a test holds them to it): an action that is
 * listed works, and one that works is listed.
 */
import { findProtocol } from "../../protocols/registry.js";
import type { Protocol } from "../../protocols/types.js";
import type { ActionSpec } from "./types.js";

/** The actions of a protocol, keyed by method. */
export function protocolActions(protocol: Protocol): Record<string, ActionSpec> {
  return protocol.actions ?? {};
}

/** The action for `protocol`/`method`, or undefined when either is unknown. */
export function findAction(slug: string, method: string): ActionSpec | undefined {
  const protocol = findProtocol(slug);
  return protocol ? protocolActions(protocol)[method] : undefined;
}
