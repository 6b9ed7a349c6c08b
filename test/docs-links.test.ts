/**
 * The documentation's links hold: in README.md and every docs/*.md page, each relative Markdown
 * link names a file that exists and, with `#anchor`, a heading of that file (GitHub's slugs);
 * and each test or benchmark file a page names in backticks, the evidence its claims cite, exists.
 * No network: links with a scheme (https:, mailto:) are not followed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** README.md and the docs pages, as paths relative to the repository. */
const PAGES = [
  "README.md",
  ...readdirSync(join(repo, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, one entry per line (fenced lines become empty). */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

/** GitHub's anchor for a heading: lower-case, punctuation but `-` and `_` dropped, spaces to `-`. */
function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link in a heading keeps its text
    .replace(/`/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a Markdown file offers, a repeated heading suffixed `-1`, `-2`… as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1] as string);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** A test or benchmark file named in backticks: `test/….test.ts`, `test/…/x.ts`, `bench/….ts`, `bench/results/….md`. */
const EVIDENCE_PATH = /(?<![\w./-])((?:test|bench)\/[\w./-]*\.(?:ts|md))(?![\w/-])/g;

/** What is wrong with the links and cited files of `page` (relative to the repository), one line each. */
function linkProblems(page: string, markdown: string): string[] {
  const problems: string[] = [];
  const dir = dirname(page);
  proseLines(markdown).forEach((line, i) => {
    const where = `${page}:${i + 1}`;
    const spans = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
    for (const span of spans) {
      for (const m of span.matchAll(EVIDENCE_PATH)) {
        const path = m[1] as string;
        if (!existsSync(join(repo, path))) problems.push(`${where}: \`${path}\` does not exist`);
      }
    }
    const text = line.replace(/`[^`]*`/g, "``");
    for (const m of text.matchAll(/\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const [link, , target] = m as unknown as [string, string, string];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf("#");
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const file = pathPart === "" ? page : normalize(join(dir, pathPart));
      if (relative(repo, join(repo, file)).startsWith("..")) {
        problems.push(`${where}: ${link} leaves the repository`);
        continue;
      }
      const absolute = join(repo, file);
      if (file !== page && !existsSync(absolute)) {
        problems.push(`${where}: ${link} → ${file} does not exist`);
        continue;
      }
      if (anchor === undefined) continue;
      if (file !== page && (statSync(absolute).isDirectory() || !file.endsWith(".md"))) {
        problems.push(`${where}: ${link} → #${anchor} on ${file}, which has no headings`);
        continue;
      }
      const targetText = file === page ? markdown : readFileSync(absolute, "utf8");
      if (!anchorsOf(targetText).has(anchor))
        problems.push(`${where}: ${link} → ${file} has no heading #${anchor}`);
    }
  });
  return problems;
}

describe("documentation links", () => {
  test("headings slug as on GitHub", () => {
    expect(headingSlug("API keys and rate limits")).toBe("api-keys-and-rate-limits");
    expect(headingSlug("History: events, hourly and daily aggregates, USD prices")).toBe(
      "history-events-hourly-and-daily-aggregates-usd-prices",
    );
    expect(headingSlug("Metrics, logs and freshness")).toBe("metrics-logs-and-freshness");
    expect(headingSlug("1. The folder")).toBe("1-the-folder");
    expect(headingSlug("`MAX_LAG_BLOCKS` and [lag](x.md)")).toBe("max_lag_blocks-and-lag");
  });

  test("a broken link, a missing heading and a missing cited file are reported", () => {
    const page = [
      "See [the keys](configuration.md#api-keys-and-rate-limits) and [here](#a-heading).",
      "## A heading",
      "[gone](nowhere.md), [no anchor](operations.md#no-such-heading), [self](#missing).",
      "Held by `test/no-such-suite.test.ts` and `bench/results/no-such-run.md`.",
      "```",
      "[in a code block](nowhere-either.md)",
      "```",
      "[web](https://example.com/x.md) and `[in code](nowhere.md)`.",
    ].join("\n");
    expect(linkProblems("docs/planted.md", page)).toEqual([
      "docs/planted.md:3: [gone](nowhere.md) → docs/nowhere.md does not exist",
      "docs/planted.md:3: [no anchor](operations.md#no-such-heading) → docs/operations.md has no heading #no-such-heading",
      "docs/planted.md:3: [self](#missing) → docs/planted.md has no heading #missing",
      "docs/planted.md:4: `test/no-such-suite.test.ts` does not exist",
      "docs/planted.md:4: `bench/results/no-such-run.md` does not exist",
    ]);
  });

  test.each(PAGES)("%s: every relative link and cited test or benchmark file resolves", (page) => {
    const markdown = readFileSync(join(repo, page), "utf8");
    expect(linkProblems(page, markdown)).toEqual([]);
  });

  test("README.md links every docs page", () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const missing = PAGES.filter((p) => p !== "README.md" && !readme.includes(`](${p})`));
    expect(missing).toEqual([]);
  });
});
