import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Suites start their own anvil (and services); two cores, so at most two files at once.
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["test/harness/global-setup.ts"],
  },
});
