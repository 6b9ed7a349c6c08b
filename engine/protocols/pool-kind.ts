/**
 * Everything the engine needs of one kind of pool: its routing model (edges, quotes, float
 * shadows, depth, gas: `engine/routing/pool-model.ts`) and its program steps (a hop's steps and
 * leftovers: `engine/program/hop-steps.ts`). Each protocol that routes through pools implements
 * one in its folder (`engine/protocols/<slug>/pool.ts`); the composition root installs both
 * halves in their layers.
 */

import type { Pool } from "../core/types.js";
import type { HopSteps } from "../program/hop-steps.js";
import type { PoolModel } from "../routing/pool-model.js";

export type { Leftover } from "../program/hop-steps.js";
export { type EdgeOf, swapsBothWays } from "../routing/pool-model.js";

export type PoolKind<P extends Pool> = PoolModel<P> & HopSteps<P>;
