import { type AnvilInstance, startAnvil } from "../../devnet/anvil.js";
import { freePort } from "./net.js";

/** Starts a fresh anvil on a free loopback port for one suite. */
export async function startTestAnvil(params: { chainId?: number } = {}): Promise<AnvilInstance> {
  return await startAnvil({ port: await freePort(), chainId: params.chainId });
}
