/**
 * The load generator as a process of its own, so that it does not share an event loop with
 * whatever starts the service: `runLoad(plan)` spawns this file with `node --import tsx`, writes
 * the plan (JSON) to its stdin and reads one JSON report from its stdout.
 *
 * The process runs autocannon over the plan's requests (each connection cycles through them in
 * order) and checks every answer against the request's expected answer, so a load run proves
 * the service answered correctly as well as fast. Used by bench/load.ts and
 * test/reliability/load.test.ts.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import autocannon from "autocannon";
import type { z } from "zod";
import { bundleAnswerSchema, routeAnswerSchema } from "../src/api/v1/shortcuts-schemas.js";

const self = fileURLToPath(import.meta.url);
const root = resolve(self, "../..");

/** What a request must be answered with (200 and this body, or a body like it). */
export type ExpectedAnswer = {
  kind: "tokens" | "route" | "bundle";
  /** The answer to the same request before the load. */
  body: string;
  /**
   * Every answer must equal `body` byte for byte. Otherwise (the chain moves during the run)
   * an answer must pass the endpoint's response schema and keep what the chain's state cannot
   * change: the transaction's `to`, `from` and `value`, the echoed bundle and the tokens it
   * delivers; amounts out must stay positive.
   */
  exact: boolean;
};

export type LoadRequest = {
  method: "GET" | "POST";
  path: string;
  /** JSON body of a POST. */
  body?: string;
  expected: ExpectedAnswer;
};

export type LoadPlan = {
  url: string;
  connections: number;
  seconds: number;
  requests: LoadRequest[];
  /** Seconds before a request counts as timed out (autocannon's default is 10). */
  timeoutSeconds?: number;
};

/** An answer that was not the expected one. */
export type WrongAnswer = { path: string; status: number; body: string; problem: string };

export type LoadReport = {
  /** Average requests per second over the run. */
  requestsPerSecond: number;
  /** Latency percentiles in ms. */
  latency: { p50: number; p99: number; max: number };
  /** Completed responses. */
  responses: number;
  /** Connection errors (timeouts included), by error code. */
  errors: number;
  errorCodes: Record<string, number>;
  timeouts: number;
  non2xx: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  /** Responses with a status other than 200 or a body other than the expected one. */
  wrongAnswers: number;
  /** The first few of them, bodies shortened. */
  samples: WrongAnswer[];
  /** Responses per request of the plan, in plan order. */
  perRequest: { path: string; responses: number }[];
};

const SAMPLES = 12;
const SAMPLE_CHARS = 1_500;

/** Runs `plan` in a separate process and resolves with its report. */
export async function runLoad(plan: LoadPlan): Promise<LoadReport> {
  const child = spawn(process.execPath, ["--import", "tsx", self], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolveExit, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => resolveExit(code));
  });
  child.stdin.end(JSON.stringify(plan));
  const code = await exited;
  if (code !== 0) throw new Error(`load generator exited with ${code}:\n${stderr}${stdout}`);
  return JSON.parse(stdout) as LoadReport;
}

/** The parts of an answer that the chain moving on cannot change. */
function invariantOf(kind: ExpectedAnswer["kind"], answer: unknown): unknown {
  if (kind === "route") {
    const a = answer as z.output<typeof routeAnswerSchema>;
    return {
      tx: { to: a.tx.to, from: a.tx.from, value: a.tx.value },
      positive: a.amountOut !== "0",
    };
  }
  if (kind === "bundle") {
    const a = answer as z.output<typeof bundleAnswerSchema>;
    return {
      bundle: a.bundle,
      tx: { to: a.tx.to, from: a.tx.from, value: a.tx.value },
      delivered: Object.keys(a.amountsOut).sort(),
      positive: Object.values(a.amountsOut).every((v) => v !== "0"),
    };
  }
  return answer;
}

/** Why `body` is not the expected answer, or `undefined` when it is. */
function problemWith(expected: ExpectedAnswer, status: number, body: string): string | undefined {
  if (status !== 200) return `status ${status}`;
  if (body === expected.body) return undefined;
  if (expected.exact || expected.kind === "tokens")
    return "body differs from the answer before the load";
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return "body is not JSON";
  }
  const schema = expected.kind === "route" ? routeAnswerSchema : bundleAnswerSchema;
  const checked = schema.strict().safeParse(parsed);
  if (!checked.success) return `body breaks the response schema: ${checked.error.message}`;
  const before = invariantOf(expected.kind, JSON.parse(expected.body));
  if (!isDeepStrictEqual(invariantOf(expected.kind, checked.data), before))
    return "transaction target, sender, value or delivered tokens changed";
  return undefined;
}

async function main(plan: LoadPlan): Promise<LoadReport> {
  const statuses: Record<string, number> = {};
  const errorCodes: Record<string, number> = {};
  const samples: WrongAnswer[] = [];
  const perRequest = plan.requests.map((r) => ({ path: r.path, responses: 0 }));
  let wrongAnswers = 0;
  const sampledKinds = new Set<string>();
  // Each request carries its index as `X-Request-Id`, which the service echoes: an answer is
  // judged against the request it answers. autocannon pairs answers with requests by order on
  // the connection, and that pairing slips by one for the rest of the run after the service
  // closes a connection (`Connection: close` on a POST refused before its body was read).
  const requestIdOf = (i: number) => `load-${i}`;
  const indexOfId = new Map(plan.requests.map((_, i) => [requestIdOf(i), i]));
  const options: autocannon.Options = {
    url: plan.url,
    connections: plan.connections,
    duration: plan.seconds,
    timeout: plan.timeoutSeconds ?? 10,
    requests: plan.requests.map((r, i) => ({
      method: r.method,
      path: r.path,
      headers: {
        "x-request-id": requestIdOf(i),
        ...(r.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(r.body === undefined ? {} : { body: r.body }),
      onResponse: (status: number, body: string, _context: unknown, headers?: unknown) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        const echoed = (headers as Record<string, unknown> | undefined)?.["x-request-id"];
        const answered = typeof echoed === "string" ? (indexOfId.get(echoed) ?? -1) : -1;
        const request = plan.requests[answered];
        const counted = perRequest[answered];
        if (!request || !counted) {
          wrongAnswers++;
          if (samples.length < SAMPLES)
            samples.push({
              path: r.path,
              status,
              body: body.slice(0, SAMPLE_CHARS),
              problem: `the answer's X-Request-Id ${JSON.stringify(echoed)} names no request of the plan`,
            });
          return;
        }
        counted.responses++;
        const problem = problemWith(request.expected, status, body);
        if (problem === undefined) return;
        wrongAnswers++;
        // One sample per kind of problem and request first, so that a burst of one kind does
        // not hide another.
        const kind = `${request.path} ${status} ${problem.slice(0, 60)}`;
        if (samples.length < SAMPLES && !sampledKinds.has(kind)) {
          sampledKinds.add(kind);
          samples.push({ path: request.path, status, body: body.slice(0, SAMPLE_CHARS), problem });
        }
      },
    })),
  };
  const result = await new Promise<autocannon.Result>((resolveRun, reject) => {
    const instance = autocannon(options, (error, done) =>
      error ? reject(error) : resolveRun(done),
    );
    instance.on("reqError", (error: NodeJS.ErrnoException) => {
      // A timeout is an Error without a code.
      const code = error.code ?? error.message;
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    });
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    responses: result.requests.total,
    errors: result.errors,
    errorCodes,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statuses,
    wrongAnswers,
    samples,
    perRequest,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === self) {
  const plan = JSON.parse(readFileSync(0, "utf8")) as LoadPlan;
  process.stdout.write(`${JSON.stringify(await main(plan))}\n`);
}
