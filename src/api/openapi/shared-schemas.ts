/**
 * What the OpenAPI document says about the shared parameter schemas of schemas.ts beyond
 * what zod can tell it (their checks are `refine`s, whose messages it already quotes).
 */
import { addressParam } from "../schemas.js";
import { describeSchema } from "./registry.js";

describeSchema(addressParam, { pattern: "^0x[0-9a-fA-F]{40}$" });
