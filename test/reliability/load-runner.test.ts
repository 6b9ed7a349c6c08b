/**
 * The load generator judges each answer against the request it answers, also after the server
 * closes a connection. A small HTTP server answers every request with its own path, except that
 * every third POST is refused with a 503 and `Connection: close` before its body is read (as the
 * service refuses a bundle while its data lags). Ordered pairing of answers with requests slips
 * by one after each close; pairing by the echoed `X-Request-Id` does not.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type LoadRequest, runLoad } from "../../bench/load-runner.js";

let server: Server;
let url: string;
let posts = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const id = req.headers["x-request-id"];
    const headers: Record<string, string> = typeof id === "string" ? { "x-request-id": id } : {};
    if (req.method === "POST" && ++posts % 3 === 0) {
      res.writeHead(503, { ...headers, connection: "close", "content-type": "text/plain" });
      res.end("refused");
      return;
    }
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { ...headers, "content-type": "text/plain" });
      res.end(req.url);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});

test("answers are paired with their requests by request id after the server closes connections", {
  timeout: 30_000,
}, async () => {
  const request = (method: "GET" | "POST", path: string): LoadRequest => ({
    method,
    path,
    ...(method === "POST" ? { body: "{}" } : {}),
    expected: { kind: "tokens", body: path, exact: true },
  });
  const requests = [request("POST", "/a"), request("GET", "/b"), request("GET", "/c")];
  const report = await runLoad({ url, connections: 4, seconds: 2, requests });
  const refused = report.statuses["503"] ?? 0;
  expect(refused).toBeGreaterThan(0);
  expect(report.responses).toBeGreaterThan(3 * refused);
  // The refusals are the only wrong answers: every 200 carried its own request's path.
  expect(report.wrongAnswers).toBe(refused);
  expect(report.non2xx).toBe(refused);
  expect(report.samples).toEqual([
    { path: "/a", status: 503, body: "refused", problem: "status 503" },
  ]);
  expect(report.perRequest.map((r) => r.path)).toEqual(["/a", "/b", "/c"]);
  const perRequest = report.perRequest.map((r) => r.responses);
  expect(perRequest.reduce((a, b) => a + b, 0)).toBe(report.responses);
});
