/**
 * Loaded before every test file (vitest `setupFiles`): the engine's composition root, which
 * installs the built-in protocols in the layers' tables. A suite that imports an engine module
 * by its own path (a routing or program module, to test it alone) finds the pools of every
 * built-in protocol routable, as the service does.
 */
import "../../engine/index.js";
