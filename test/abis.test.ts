import { readFileSync } from "node:fs";
import { join } from "node:path";
import { keccak256 } from "viem";
import { describe, expect, test } from "vitest";
import { npmAbiModule } from "../abis/generate.js";
import { npmArtifacts, readNpmArtifact } from "../devnet/artifacts.js";

describe("abis/ from the npm build artifacts", () => {
  test.each(Object.keys(npmArtifacts) as (keyof typeof npmArtifacts)[])(
    "abis/%s.ts matches its artifact",
    (name) => {
      const committed = readFileSync(join(import.meta.dirname, "..", "abis", `${name}.ts`), "utf8");
      expect(committed).toBe(npmAbiModule(name));
    },
  );

  test("the V2 pair and V3 pool bytecode keep the canonical init-code hashes", () => {
    // Router02 and the V3 periphery hard-code these; the devnet relies on them unchanged.
    expect(keccak256(readNpmArtifact("UniswapV2Pair").bytecode)).toBe(
      "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f",
    );
    expect(keccak256(readNpmArtifact("UniswapV3Pool").bytecode)).toBe(
      "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54",
    );
  });
});
