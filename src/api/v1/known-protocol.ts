import type { Protocol } from "../../../engine/index.js";
import { findProtocol, protocols } from "../../../engine/index.js";
import { ApiError } from "../errors.js";

/** The protocol of `slug`, or a 404 that lists the known ones. */
export function knownProtocol(slug: string): Protocol {
  const protocol = findProtocol(slug);
  if (!protocol) {
    throw new ApiError(
      404,
      `Unknown protocol \`${slug}\`; known protocols: ${protocols.map((p) => p.slug).join(", ")}.`,
    );
  }
  return protocol;
}
