/**
 * Nightly-size fuzzing of every endpoint: starts the service as the tests do (fresh anvil, devnet
 * world, `ponder start` on PGlite), sends `--runs` generated requests per endpoint
 * (test/reliability/fuzz-requests.ts), and checks every answer: no 5xx, a status the endpoint
 * documents, a JSON body, the exact error shape. Afterwards the service must still answer
 * `/ready`, a known-good route and a known-good bundle with 200, and every response recorded must
 * match the OpenAPI document.
 *
 *   npx tsx bench/fuzz.ts --runs 10000 [--seed 42] [--concurrency 4] [--only route]
 *   npx tsx bench/fuzz.ts --url http://127.0.0.1:42069 --deployment .devnet/deployment.json
 *
 * Prints per-endpoint counts by status, the 5xx count and the seed (the same seed, runs and
 * endpoints generate the same requests); every failing request is printed in full. Exits 1 on
 * any failure. bench/results/fuzz.md keeps the recorded runs. Without `--seed` the seed is
 * fresh: this is where new cases are found, while `npm test` replays fixed seeds; add every
 * counterexample found here to test/reliability/fuzz.test.ts as a fixed regression case.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import fc from "fast-check";
import type { Deployment } from "../devnet/deployment.js";
import { startService } from "../test/harness/service.js";
import {
  answerProblems,
  describeRequest,
  ENDPOINTS,
  type Endpoint,
  type FuzzRequest,
  fuzzRequests,
  fuzzWorld,
  knownGoodRequests,
  sendFuzzRequest,
} from "../test/reliability/fuzz-requests.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10000" },
    seed: { type: "string" },
    concurrency: { type: "string", default: "4" },
    only: { type: "string" },
    url: { type: "string" },
    deployment: { type: "string" },
    /** Requests per generated batch (memory: some bodies are 1 MiB). */
    batch: { type: "string", default: "250" },
  },
});

const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const concurrency = Number(values.concurrency);
const batch = Number(values.batch);
const endpoints = ENDPOINTS.filter((e) => !values.only || values.only.split(",").includes(e));
if (endpoints.length === 0) throw new Error(`--only ${values.only}: no such endpoint`);

type Tally = {
  statuses: Map<number | "no answer", number>;
  failures: { request: FuzzRequest; problems: string[] }[];
  kinds: Map<string, number>;
  ms: number;
};

/** The seed of one batch of one endpoint: the run's seed, the endpoint and the batch number. */
function batchSeed(endpoint: Endpoint, index: number): number {
  return (seed + ENDPOINTS.indexOf(endpoint) * 1_000_003 + index * 7_919) % 2 ** 31;
}

async function fuzzEndpoint(url: string, endpoint: Endpoint, arbitrary: fc.Arbitrary<FuzzRequest>) {
  const tally: Tally = { statuses: new Map(), failures: [], kinds: new Map(), ms: 0 };
  const started = performance.now();
  for (let done = 0, index = 0; done < runs; done += batch, index++) {
    const requests = fc.sample(arbitrary, {
      seed: batchSeed(endpoint, index),
      numRuns: Math.min(batch, runs - done),
    });
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < requests.length; i = next++) {
        const request = requests[i] as FuzzRequest;
        tally.kinds.set(request.kind, (tally.kinds.get(request.kind) ?? 0) + 1);
        try {
          const answer = await sendFuzzRequest(url, request);
          tally.statuses.set(answer.status, (tally.statuses.get(answer.status) ?? 0) + 1);
          const problems = answerProblems(request, answer);
          if (problems.length > 0) {
            tally.failures.push({ request, problems });
            console.error(
              `FAIL ${endpoint} (batch seed ${batchSeed(endpoint, index)}, #${i}): ${problems.join("; ")}\n  ${describeRequest(request)}\n  answer ${answer.status}: ${answer.text.slice(0, 400)}`,
            );
          }
        } catch (error) {
          tally.statuses.set("no answer", (tally.statuses.get("no answer") ?? 0) + 1);
          const problems = [
            `no answer: ${(error as Error).message} ${String((error as Error).cause ?? "")}`,
          ];
          tally.failures.push({ request, problems });
          console.error(`FAIL ${endpoint}: ${problems[0]}\n  ${describeRequest(request)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
  tally.ms = performance.now() - started;
  return tally;
}

async function stillServes(url: string, deployment: Deployment): Promise<string[]> {
  const problems: string[] = [];
  const good = knownGoodRequests(deployment);
  const ready = await fetch(`${url}/ready`);
  if (ready.status !== 200) problems.push(`/ready answered ${ready.status}`);
  const route = await fetch(`${url}${good.route}`);
  if (route.status !== 200)
    problems.push(`known-good route answered ${route.status}: ${await route.text()}`);
  const bundle = await sendFuzzRequest(url, good.bundle);
  if (bundle.status !== 200)
    problems.push(`known-good bundle answered ${bundle.status}: ${bundle.text}`);
  return problems;
}

let url = values.url;
let deployment: Deployment;
let stop: (() => Promise<void>) | undefined;
let alive = () => true;
if (url) {
  if (!values.deployment) throw new Error("--url needs --deployment (the devnet deployment JSON)");
  deployment = JSON.parse(readFileSync(values.deployment, "utf8")) as Deployment;
} else {
  const service = await startService({ database: "pglite" });
  url = service.url;
  deployment = service.deployment;
  stop = service.stop;
  alive = () => service.process.exitCode === null && service.process.signalCode === null;
}

const failures: string[] = [];
try {
  const arbitraries = fuzzRequests(fuzzWorld(deployment));
  console.log(`seed ${seed}, ${runs} runs per endpoint, concurrency ${concurrency}`);
  console.log("");
  console.log("| endpoint | runs | statuses | 5xx | failures | seconds |");
  console.log("|---|---:|---|---:|---:|---:|");
  let total5xx = 0;
  for (const endpoint of endpoints) {
    const tally = await fuzzEndpoint(url, endpoint, arbitraries[endpoint]);
    const serverErrors = [...tally.statuses]
      .filter(([s]) => s === "no answer" || s >= 500)
      .reduce((sum, [, n]) => sum + n, 0);
    total5xx += serverErrors;
    const statuses = [...tally.statuses]
      .sort(([a], [b]) => String(a).localeCompare(String(b)))
      .map(([s, n]) => `${s}: ${n}`)
      .join(", ");
    console.log(
      `| ${endpoint} | ${runs} | ${statuses} | ${serverErrors} | ${tally.failures.length} | ${(tally.ms / 1000).toFixed(1)} |`,
    );
    for (const f of tally.failures) failures.push(`${endpoint}: ${f.problems.join("; ")}`);
    if (!alive()) {
      failures.push(`the service process died during the ${endpoint} run`);
      break;
    }
  }
  console.log("");
  console.log(`5xx or unanswered: ${total5xx}; seed ${seed}`);
  const after = alive() ? await stillServes(url, deployment) : ["the service process is gone"];
  failures.push(...after);
  console.log(
    after.length === 0
      ? "after the run: /ready, the known-good route and the known-good bundle answer 200"
      : `after the run: ${after.join("; ")}`,
  );
} finally {
  if (stop) {
    try {
      await stop();
      console.log("OpenAPI contract: every recorded response matches the document");
    } catch (error) {
      failures.push(`OpenAPI contract: ${(error as Error).message.slice(0, 4000)}`);
    }
  }
}
if (failures.length > 0) {
  console.error(`\n${failures.length} failures:\n${failures.slice(0, 50).join("\n")}`);
  process.exit(1);
}
