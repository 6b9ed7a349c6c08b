import { configDefaults, defineConfig } from "vitest/config";

/**
 * Suites whose assertions hold only when the service has the machine to itself: every answer
 * of a sustained load a 200 while blocks are mined, and its latency and memory measured (a
 * service starved of CPU by another suite answers slowly, and its routing snapshot falls
 * behind). They run after every other suite, one file at a time.
 */
const ALONE = ["test/reliability/load.test.ts"];
/**
 * Suites that run several indexers of one chain at once (four to six `ponder start`s, each with
 * its own pool of Postgres connections): two of them side by side would pass the database's 100
 * connections. They run after the other suites, one file at a time.
 */
const INDEXERS = [
  "test/state-start.test.ts",
  "test/state-start-bad-node.test.ts",
  "test/mainnet-shaped-state-start.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Suites start their own anvil (and services); two cores, so at most two files at once.
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["test/harness/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "suites",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...ALONE, ...INDEXERS],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "indexers",
          include: INDEXERS,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
