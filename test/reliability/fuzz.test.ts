/**
 * Hostile input against every endpoint of a fresh devnet service: fast-check generates
 * near-valid and adversarial requests (test/reliability/fuzz-requests.ts) and every answer must
 * be a documented status (never a 5xx), JSON, and — when an error — exactly
 * `{ statusCode, error, message, details? }`. Afterwards the service still answers. Also the
 * exact answers at the request limits: the 256 KiB body, the 32-action bundle, the 64-level
 * nesting, and regressions for what fuzzing found.
 *
 * The run is deterministic: each endpoint has a fixed seed (printed), so a landing never depends
 * on the luck of a draw. `bench/fuzz.ts` explores with fresh seeds, and every counterexample it
 * finds becomes a fixed regression case below. FUZZ_RUNS sets the cases per endpoint (default
 * 300); FUZZ_SEED replaces the fixed seeds (to replay what `bench/fuzz.ts` printed).
 */
import { Agent, request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ServiceInstance, startService } from "../harness/service.js";
import {
  answerProblems,
  BUNDLE_ACTION_LIMIT,
  BUNDLE_BODY_LIMIT_BYTES,
  BUNDLE_DEPTH_LIMIT,
  describeRequest,
  ENDPOINTS,
  type Endpoint,
  type FuzzRequest,
  fuzzRequests,
  fuzzWorld,
  knownGoodRequests,
  paddedBody,
  sendFuzzRequest,
} from "./fuzz-requests.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** The fixed seed of each endpoint's run (FUZZ_SEED replaces them all). */
const SEEDS: Record<Endpoint, number> = {
  tokens: 1_101,
  standards: 1_202,
  standard: 1_303,
  projects: 1_404,
  route: 1_505,
  bundle: 1_606,
  actions: 1_707,
  action: 1_808,
  prices: 1_909,
  price: 2_010,
  networks: 2_111,
  protocols: 2_212,
  balances: 2_313,
  approve: 2_414,
  logo: 2_515,
  openapi: 2_616,
  docs: 2_717,
  frontPage: 2_818,
  overview: 2_919,
  overviewScript: 3_020,
  metricsApi: 3_121,
  graphql: 3_222,
};
const seedOf = (endpoint: Endpoint): number =>
  process.env.FUZZ_SEED === undefined ? SEEDS[endpoint] : Number(process.env.FUZZ_SEED);
const FROM = "0x00000000000000000000000000000000000a11ce";
const WRAP = { protocol: "wrapped-native", action: "deposit", args: { amountIn: "1000" } };

type Answer = { status: number; connection: string | undefined; body: unknown };

const bad = (message: string) => ({
  status: 400,
  body: { statusCode: 400, error: "Bad Request", message },
});

/**
 * POSTs `body` through node:http, with a Content-Length or (`chunked`) without one, in 64 KiB
 * writes, through `agent` when given (one keep-alive socket, to see it reused). A server that
 * refuses a body by its size answers before reading it and closes the connection, so writing
 * the rest of the body may then fail: the answer is what counts, as for any client that reads
 * the response while it sends (fetch gives up on the failed write instead).
 */
function postRaw(
  url: string,
  body: string,
  options: { chunked?: boolean; agent?: Agent } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      url,
      {
        method: "POST",
        agent: options.agent,
        headers: {
          "content-type": "application/json",
          ...(options.chunked
            ? { "transfer-encoding": "chunked" }
            : { "content-length": String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        answered = true;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            body: JSON.parse(text),
          }),
        );
      },
    );
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    for (let at = 0; at < body.length; at += 65_536) req.write(body.slice(at, at + 65_536));
    req.end();
  });
}

const postChunked = (url: string, body: string, agent?: Agent) =>
  postRaw(url, body, { chunked: true, agent });
const postWithLength = (url: string, body: string, agent?: Agent) => postRaw(url, body, { agent });

describe("the answer checks", () => {
  const request: FuzzRequest = {
    endpoint: "bundle",
    method: "POST",
    target: "/v1/shortcuts/bundle",
    kind: "check",
  };
  const json = "application/json";
  const error = (status: number, body: unknown) => ({
    status,
    contentType: json,
    text: JSON.stringify(body),
  });

  test("accept a well-formed error and success, and flag everything else", () => {
    expect(
      answerProblems(request, error(400, { statusCode: 400, error: "Bad Request", message: "x" })),
    ).toEqual([]);
    expect(
      answerProblems(
        request,
        error(422, { statusCode: 422, error: "Unprocessable Entity", message: "x", details: {} }),
      ),
    ).toEqual([]);
    expect(
      answerProblems(request, error(200, { bundle: [], tx: {}, gas: "1", amountsOut: {} })),
    ).toEqual([]);
    expect(
      answerProblems(
        request,
        error(500, { statusCode: 500, error: "Internal Server Error", message: "x" }),
      ),
    ).toEqual(["status 500 is a server error", "error Internal Server Error is not undefined"]);
    expect(
      answerProblems(request, { status: 400, contentType: "text/plain", text: "Bad Request" }),
    ).toEqual(["content-type text/plain is not JSON", "body is not JSON: Bad Request"]);
    expect(
      answerProblems(
        request,
        error(400, { statusCode: 404, error: "Bad Request", message: "", extra: 1 }),
      ),
    ).toEqual([
      "error body keys are error,extra,message,statusCode",
      "statusCode 404 differs from status 400",
      "message is not a non-empty string",
    ]);
    expect(
      answerProblems(request, error(401, { statusCode: 401, error: "Unauthorized", message: "x" })),
    ).toEqual([
      "status 401 is not one of 200, 400, 404, 413, 422",
      "error Unauthorized is not undefined",
    ]);
    expect(
      answerProblems(
        request,
        error(400, { statusCode: 400, error: "Bad Request", message: "x", details: [1] }),
      ),
    ).toEqual(["details is not an object"]);
    expect(answerProblems(request, error(200, []))).toEqual([
      "success body has the wrong shape: []",
    ]);
    expect(
      answerProblems(
        { ...request, method: "PUT" },
        error(400, { statusCode: 400, error: "Bad Request", message: "x" }),
      ),
    ).toEqual(["status 400 is not one of 404"]);
  });
});

type ErrorBody = {
  statusCode: number;
  error: string;
  message: string;
  details?: { blockNumber?: number };
};

const tokenOf = (service: ServiceInstance, symbol: string): string => {
  const token = service.deployment.tokens.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`the devnet world has no ${symbol}`);
  return token.address;
};

describe("hostile requests against the devnet service", () => {
  let service: ServiceInstance;
  let arbitraries: Record<Endpoint, fc.Arbitrary<FuzzRequest>>;
  const bundleUrl = (query = `fromAddress=${FROM}`) =>
    `${service.url}/v1/shortcuts/bundle?${query}`;
  const post = async (body: string, query?: string): Promise<Answer> => {
    const res = await fetch(bundleUrl(query), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return {
      status: res.status,
      connection: res.headers.get("connection") ?? undefined,
      body: await res.json(),
    };
  };
  const statusAndBody = ({ status, body }: Answer) => ({ status, body });

  beforeAll(async () => {
    service = await startService({ database: "pglite" });
    arbitraries = fuzzRequests(fuzzWorld(service.deployment));
  });

  afterAll(async () => {
    // Also checks every recorded answer against the OpenAPI document.
    await service?.stop();
  });

  for (const endpoint of ENDPOINTS) {
    test(`${endpoint}: ${RUNS} fuzzed requests (seed ${seedOf(endpoint)}) get a documented JSON answer, never a 5xx`, async () => {
      console.log(`fuzz ${endpoint}: seed ${seedOf(endpoint)}, ${RUNS} runs`);
      await fc.assert(
        fc.asyncProperty(arbitraries[endpoint], async (request) => {
          const answer = await sendFuzzRequest(service.url, request);
          const problems = answerProblems(request, answer);
          if (problems.length > 0) {
            throw new Error(
              `${problems.join("; ")}\n${describeRequest(request)}\nanswer ${answer.status}: ${answer.text.slice(0, 500)}`,
            );
          }
        }),
        { numRuns: RUNS, seed: seedOf(endpoint) },
      );
    }, 120_000);
  }

  test(`a bundle body of exactly ${BUNDLE_BODY_LIMIT_BYTES} bytes is taken; one byte more, 1 MiB, or chunked beyond the limit is a 413`, async () => {
    const json = JSON.stringify([WRAP]);
    const plain = await post(json);
    expect(plain.status).toBe(200);
    expect(statusAndBody(await post(paddedBody(json, BUNDLE_BODY_LIMIT_BYTES)))).toEqual(
      statusAndBody(plain),
    );
    expect(
      statusAndBody(await postChunked(bundleUrl(), paddedBody(json, BUNDLE_BODY_LIMIT_BYTES))),
    ).toEqual(statusAndBody(plain));
    const tooLarge = {
      status: 413,
      connection: "close",
      body: {
        statusCode: 413,
        error: "Payload Too Large",
        message: "The request body is larger than 262144 bytes.",
      },
    };
    // A refused body may still be on its way when the server closes: read as a client that
    // reads the response while it sends.
    expect(
      await postWithLength(bundleUrl(), paddedBody(json, BUNDLE_BODY_LIMIT_BYTES + 1)),
    ).toEqual(tooLarge);
    expect(await postWithLength(bundleUrl(), paddedBody(json, 1 << 20))).toEqual(tooLarge);
    expect(await postChunked(bundleUrl(), paddedBody(json, BUNDLE_BODY_LIMIT_BYTES + 1))).toEqual(
      tooLarge,
    );
    expect(await postChunked(bundleUrl(), paddedBody(json, 1 << 20))).toEqual(tooLarge);
  });

  test(`a bundle of ${BUNDLE_ACTION_LIMIT} actions is built; ${BUNDLE_ACTION_LIMIT + 1} or more are a 400 before any action is read`, async () => {
    const full = await post(
      JSON.stringify(Array.from({ length: BUNDLE_ACTION_LIMIT }, () => WRAP)),
    );
    expect(full.status).toBe(200);
    const answer = full.body as { bundle: unknown[]; tx: { value: string } };
    expect(answer.bundle).toEqual(Array.from({ length: 32 }, () => WRAP));
    expect(answer.tx.value).toBe("32000");
    expect(
      statusAndBody(await post(JSON.stringify(Array.from({ length: 33 }, () => WRAP)))),
    ).toEqual(bad("The bundle has 33 actions; at most 32 are accepted."));
    expect(
      statusAndBody(await post(JSON.stringify(Array.from({ length: 33 }, () => null)))),
    ).toEqual(bad("The bundle has 33 actions; at most 32 are accepted."));
    expect(statusAndBody(await post(`[${Array(5000).fill("0").join(",")}]`))).toEqual(
      bad("The bundle has 5000 actions; at most 32 are accepted."),
    );
  });

  test(`bodies nested ${BUNDLE_DEPTH_LIMIT} levels are read; deeper ones (up to 100,000 levels) are a 400, not a stack overflow`, async () => {
    const nested = (depth: number, inner = "0") =>
      `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
    const tooDeep = bad("The request body nests arrays and objects deeper than 64 levels.");
    expect(statusAndBody(await post(nested(BUNDLE_DEPTH_LIMIT)))).toEqual(
      bad("actions[0]: expected an object { protocol, action, args }."),
    );
    expect(statusAndBody(await post(nested(BUNDLE_DEPTH_LIMIT + 1)))).toEqual(tooDeep);
    expect(statusAndBody(await post(nested(100_000)))).toEqual(tooDeep);
    // Deep inside a call's arguments: this answered 500 (the compiler recursed off the stack).
    const call = (abi: string, args: string) =>
      `[{"protocol":"core","action":"call","args":{"address":"0x0000000000000000000000000000000000000001","method":"f","abi":"${abi}","args":[${args}]}}]`;
    expect(statusAndBody(await post(call("function f(bytes b)", nested(10_000))))).toEqual(tooDeep);
    expect(
      statusAndBody(
        await post(call("function f(bytes b)", nested(100_000, '{"useOutputOfCallAt":0}'))),
      ),
    ).toEqual(tooDeep);
    // Within the limit, the argument is checked as usual: 4 levels of body, 58 of argument.
    expect(statusAndBody(await post(call("function f(uint256[] a)", nested(58))))).toEqual(
      bad("actions[0].args.args[0][0]: expected an integer (decimal string) for uint256."),
    );
    expect(statusAndBody(await post(call("function f(uint256[] a)", nested(61))))).toEqual(tooDeep);
  });

  test("call arguments of type bytes, bytesN and string must be what they say (an array was encoded as bytes)", async () => {
    const call = (abi: string, arg: unknown) =>
      JSON.stringify([
        {
          protocol: "core",
          action: "call",
          args: {
            address: "0x0000000000000000000000000000000000000001",
            method: "f",
            abi,
            args: [arg],
          },
        },
      ]);
    const cases: [string, unknown, string][] = [
      ["function f(bytes b)", [[1, 2]], "expected bytes as 0x-prefixed hex for bytes."],
      ["function f(bytes b)", "0x123", "expected bytes as 0x-prefixed hex for bytes."],
      ["function f(bytes b)", "hello", "expected bytes as 0x-prefixed hex for bytes."],
      ["function f(bytes32 b)", "0x1234", "expected 32 bytes as 0x-prefixed hex for bytes32."],
      ["function f(bytes4 b)", 7, "expected 4 bytes as 0x-prefixed hex for bytes4."],
      ["function f(string s)", 12, "expected a string."],
      ["function f(string s)", ["a"], "expected a string."],
    ];
    for (const [abi, arg, message] of cases) {
      expect({ abi, arg, answer: statusAndBody(await post(call(abi, arg))) }).toEqual({
        abi,
        arg,
        answer: bad(`actions[0].args.args[0]: ${message}`),
      });
    }
  });

  test("action names that are Object.prototype properties are unknown actions (they answered 500)", async () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      expect(
        statusAndBody(await post(JSON.stringify([{ protocol: "core", action: name, args: {} }]))),
      ).toEqual(
        bad(
          `actions[0].action: core has no action "${name}"; its actions: route, call, transfer, approve, balance, split, minamountout.`,
        ),
      );
    }
    expect(
      statusAndBody(
        await post(
          JSON.stringify([WRAP, { protocol: "wrapped-native", action: "constructor", args: {} }]),
        ),
      ),
    ).toEqual(
      bad(
        'actions[1].action: wrapped-native has no action "constructor"; its actions: deposit, withdraw.',
      ),
    );
  });

  test("regression (fuzz seed 731740494): a route action of 0 wei answered 500; args that are not an object are a 400 naming them", async () => {
    const shrunk = [
      {
        protocol: "core",
        action: "route",
        args: {
          tokenIn: "0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6",
          tokenOut: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
          amountIn: "0",
          slippage: 4435,
        },
      },
      { protocol: "core", action: "split", args: null },
    ];
    expect(statusAndBody(await post(JSON.stringify(shrunk)))).toEqual(
      bad("actions[0].args.amountIn: expected an amount greater than 0."),
    );
    const cases: [unknown, string][] = [
      [null, "null"],
      [[], "an array"],
      [["1000"], "an array"],
      ["1000", "a string"],
      [1000, "a number"],
      [true, "a boolean"],
    ];
    for (const [args, got] of cases) {
      for (const action of [
        { protocol: "core", action: "split", args },
        { protocol: "wrapped-native", action: "deposit", args },
      ]) {
        expect({
          action,
          answer: statusAndBody(await post(JSON.stringify([WRAP, action]))),
        }).toEqual({
          action,
          answer: bad(`actions[1].args: expected an object of named arguments, got ${got}.`),
        });
      }
    }
  });

  test("a token chainId beyond the stored integer range is an empty page (it answered 500)", async () => {
    const empty = {
      meta: { total: 0, lastPage: 1, currentPage: 1, perPage: 1000, prev: null, next: null },
      data: [],
    };
    for (const chainId of ["2147483647", "2147483648", "9007199254740991"]) {
      const res = await fetch(`${service.url}/v1/tokens?chainId=${chainId}`);
      expect({ chainId, status: res.status, body: await res.json() }).toEqual({
        chainId,
        status: 200,
        body: empty,
      });
    }
  });

  test("regression (fuzz seed 1505): native amountIn of 2^256 - 1 answered 503 once simulations buy their gas", async () => {
    const max = (2n ** 256n - 1n).toString();
    const weth = tokenOf(service, "WETH");
    const answers: { routingStrategy: string; status: number; body: ErrorBody }[] = [];
    for (const routingStrategy of ["delegate", "router"]) {
      const query = new URLSearchParams({
        fromAddress: "0x00000000000000000000000000000000000a11ce",
        tokenIn: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
        // Wrapping takes any amount, so nothing refuses the route before its simulation.
        tokenOut: weth,
        amountIn: max,
        routingStrategy,
        priceImpact: "false",
      });
      const res = await fetch(`${service.url}/v1/shortcuts/route?${query}`);
      answers.push({ routingStrategy, status: res.status, body: (await res.json()) as ErrorBody });
    }
    // Delegate: the caller's own account pays with what it holds (given in the simulation), and
    // WETH9's deposit overflows; router: the transaction itself carries the value.
    expect(answers).toEqual([
      {
        routingStrategy: "delegate",
        status: 422,
        body: {
          statusCode: 422,
          error: "Unprocessable Entity",
          message: `The route's transaction reverted in simulation: Step 2 (wrap on ${weth}) failed: reverted without a reason.`,
          details: { blockNumber: answers[0]?.body.details?.blockNumber },
        },
      },
      {
        routingStrategy: "router",
        status: 400,
        body: {
          statusCode: 400,
          error: "Bad Request",
          message: `The transaction sends ${max} wei of native currency: with its gas that is more than any account can hold (2^256 - 1 wei).`,
        },
      },
    ]);
    expect(answers[0]?.body.details?.blockNumber).toBeGreaterThan(0);
  });

  test("a refused bundle keeps the connection usable: the body is read first, and a 413 closes it", async () => {
    // Before, a bundle refused before its body was read (bad query, 413) left the socket to be
    // destroyed just after the answer, resetting the client's next request on it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify([WRAP]);
      for (let i = 0; i < 20; i++) {
        expect(await postWithLength(bundleUrl("fromAddress=0x1"), body, agent)).toEqual({
          status: 400,
          connection: "keep-alive",
          body: bad(
            "Invalid query parameter `fromAddress`: expected an address (0x followed by 40 hex digits).",
          ).body,
        });
        expect(await postWithLength(bundleUrl(`fromAddress=${FROM}&x=1`), body, agent)).toEqual({
          status: 400,
          connection: "keep-alive",
          body: bad(
            "Unknown query parameter `x`; accepted: fromAddress, chainId, routingStrategy, receiver, spender, slippage, deadline.",
          ).body,
        });
      }
      const over = await postWithLength(
        bundleUrl(),
        paddedBody(body, BUNDLE_BODY_LIMIT_BYTES + 1),
        agent,
      );
      expect({ status: over.status, connection: over.connection }).toEqual({
        status: 413,
        connection: "close",
      });
      expect((await postWithLength(bundleUrl(), body, agent)).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  test("after all of it the service is up: /ready, a known-good route and bundle answer 200", async () => {
    expect(service.process.exitCode).toBeNull();
    expect(service.process.signalCode).toBeNull();
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    const good = knownGoodRequests(service.deployment);
    const route = await fetch(`${service.url}${good.route}`);
    const routeBody = (await route.json()) as { amountOut: string; tx: { to: string } };
    expect(route.status).toBe(200);
    expect(BigInt(routeBody.amountOut)).toBeGreaterThan(0n);
    expect(routeBody.tx.to.toLowerCase()).toBe(service.deployment.execution.router?.toLowerCase());
    const bundle = await sendFuzzRequest(service.url, good.bundle);
    expect(bundle.status).toBe(200);
    expect((JSON.parse(bundle.text) as { bundle: unknown }).bundle).toEqual([WRAP]);
  });
});
