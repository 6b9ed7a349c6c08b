import { erc4626Protocol } from "../erc4626/protocol.js";

/** Stablecoin savings vaults (plain ERC4626) of the devnet world. */
export const savingsVaults = erc4626Protocol("savings-vaults", {
  title: "Savings Vaults",
  description: "ERC4626 savings vaults for stablecoins.",
  url: "https://eips.ethereum.org/EIPS/eip-4626",
  twitter: "",
  category: "Yield",
});
