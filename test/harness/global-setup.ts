import { buildContracts } from "../../contracts/build.js";

/** Compiles the project's contracts once before any suite runs (cached on source hash). */
export default function setup(): void {
  buildContracts({ check: process.env.CI === "true" });
}
