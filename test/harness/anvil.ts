import { type AnvilInstance, type AnvilParameters, startAnvil } from "../../devnet/anvil.js";
import { freePort } from "./net.js";

/** Starts a fresh anvil on a free loopback port for one suite. */
export async function startTestAnvil(
  params: Pick<AnvilParameters, "chainId" | "codeSizeLimit" | "network"> = {},
): Promise<AnvilInstance> {
  return await startAnvil({ ...params, port: await freePort() });
}
