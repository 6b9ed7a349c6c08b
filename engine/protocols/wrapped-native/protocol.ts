import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import type { Protocol } from "../types.js";
import { wrappedNativeActions } from "./actions.js";
import { wrappedNativePool } from "./pool.js";

const amount = AMOUNT_DESCRIPTION;

/** WETH9-style wrapping of the native currency. */
export const wrappedNative: Protocol = {
  slug: "wrapped-native",
  url: "https://weth.io",
  project: {
    title: "Wrapped Ether",
    description: "WETH9: the native currency as an ERC20, one for one.",
    url: "https://weth.io",
    twitter: "",
    category: "Wrapped Tokens",
  },
  forks: [],
  poolSource: "wrappedNative",
  supports: (chain) => chain.weth !== undefined,
  poolKind: wrappedNativePool,
  actions: wrappedNativeActions,
  methods: [
    {
      method: "deposit",
      name: "Wrap",
      functionNames: ["deposit"],
      inputs: { primaryAddress: "WETH address", amountIn: amount },
      outputs: { amount: "WETH received (equal to amountIn)" },
    },
    {
      method: "withdraw",
      name: "Unwrap",
      functionNames: ["withdraw"],
      inputs: { primaryAddress: "WETH address", amountIn: amount },
      outputs: { amount: "Native currency received (equal to amountIn)" },
    },
  ],
};
