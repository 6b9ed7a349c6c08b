/**
 * The indexed tables, each declared next to the handlers that write it: the token catalogue in
 * `src/tokens/`, each protocol's tables in `src/protocols/<slug>/tables.ts`. Ponder reads this
 * file's named exports as the schema (and the handlers import them as `ponder:schema`), so a
 * protocol with tables adds its line here (docs/adding-a-protocol.md).
 */
export * from "./src/analytics/tables.js";
export * from "./src/protocols/aave-v3/tables.js";
export * from "./src/protocols/balancer-v2/tables.js";
export * from "./src/protocols/erc4626/tables.js";
export * from "./src/protocols/uniswap-v2/tables.js";
export * from "./src/protocols/uniswap-v3/tables.js";
export * from "./src/protocols/uniswap-v4/tables.js";
export * from "./src/tokens/tables.js";
