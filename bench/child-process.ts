/** What the benchmarks measure of, and do to, the processes they spawn. */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

/** User + system CPU seconds a live process has used (Linux `/proc/<pid>/stat`; clock ticks of 1/100 s). */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The most resident memory a live process has had, in MiB (Linux `/proc/<pid>/status`, VmHWM). */
export function peakRssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? Number.NaN : Number(kib) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** SIGTERM, unless it has exited already, then waits for the exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}
