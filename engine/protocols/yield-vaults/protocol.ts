import { erc4626Protocol } from "../erc4626/protocol.js";

/** Yield-bearing ERC4626 vaults of the devnet world; their share price grows with yield. */
export const yieldVaults = erc4626Protocol("yield-vaults", {
  title: "Yield Vaults",
  description: "ERC4626 vaults whose assets accrue yield without minting shares.",
  url: "https://eips.ethereum.org/EIPS/eip-4626",
  twitter: "",
  category: "Yield",
});
