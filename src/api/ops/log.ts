/**
 * Structured logs of the HTTP API: one JSON object per line on stdout, so that a log shipper
 * can index them without parsing. Ponder's own lines (indexing, database) are separate; start
 * Ponder with `--log-format json` to have those as JSON too.
 */

export type LogLevel = "debug" | "info" | "warn" | "error";

export type LogFields = Record<string, unknown>;

export type LogSink = (line: string) => void;

let sink: LogSink = (line) => {
  process.stdout.write(`${line}\n`);
};

/** Redirects log lines (tests capture them); returns the previous sink. */
export function setLogSink(next: LogSink): LogSink {
  const previous = sink;
  sink = next;
  return previous;
}

/** Writes one JSON log line: `time`, `level`, `msg`, then `fields` in their order. */
export function log(level: LogLevel, msg: string, fields: LogFields = {}): void {
  sink(
    JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }, (_key, value) =>
      typeof value === "bigint" ? value.toString() : value,
    ),
  );
}

/** The loggable parts of an error: never the objects it references (they may hold secrets). */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) {
    return { error: { name: error.name, message: error.message, stack: error.stack } };
  }
  return { error: { message: String(error) } };
}
