/**
 * Answers computed from the indexed tables, kept while the indexed state they came from is
 * unchanged (snapshotVersion), so repeated catalogue queries do not hit the database.
 */
import { snapshotVersion, startSnapshotRefresh } from "./routing/snapshot";

const MAX_ENTRIES = 1_000;

export class AnswerCache<T> {
  private version: string | undefined;
  private readonly entries = new Map<string, T>();

  /** The cached answer for `key`, or computes, caches and returns it. */
  async get(key: string, compute: () => Promise<T>): Promise<T> {
    startSnapshotRefresh();
    const version = snapshotVersion();
    if (version === undefined) return await compute();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = await compute();
    // Only keep it if the state did not move while it was computed.
    if (snapshotVersion() === version) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}
