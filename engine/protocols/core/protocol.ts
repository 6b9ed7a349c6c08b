import { AMOUNT_DESCRIPTION } from "../../bundle/actions/args.js";
import type { Protocol } from "../types.js";
import { coreActions } from "./actions.js";

const amount = AMOUNT_DESCRIPTION;

/** The built-in actions: routes, raw calls and token plumbing. */
export const core: Protocol = {
  slug: "core",
  url: "",
  forks: [],
  supports: (chain) => Object.keys(chain.execution).length > 0 || chain.devnet,
  actions: coreActions,
  methods: [
    {
      method: "route",
      name: "Route",
      functionNames: ["execute"],
      inputs: {
        tokenIn: "Address of the token to spend (0xeeee…eeee for the native currency)",
        tokenOut: "Address of the token or position to receive",
        amountIn: amount,
        slippage: "Slippage tolerance in basis points (default 300)",
      },
      outputs: { amountOut: "Amount of tokenOut received" },
    },
    {
      method: "call",
      name: "Contract call",
      functionNames: [],
      inputs: {
        address: "Target contract address",
        method: "Function name",
        abi: "One-line function signature, e.g. function deposit(uint256 assets, address receiver) returns (uint256)",
        args: "Positional arguments: literals or output references, also inside arrays",
        value: "Native value to send in wei (optional)",
      },
      outputs: { returnValue: "The function's return value (index selects one of several)" },
    },
    {
      method: "transfer",
      name: "Transfer",
      functionNames: ["transfer"],
      inputs: { token: "Token address", receiver: "Recipient address", amount },
      outputs: { amount: "Amount transferred" },
    },
    {
      method: "approve",
      name: "Approve",
      functionNames: ["approve"],
      inputs: { token: "Token address", spender: "Spender address", amount },
      outputs: {},
    },
    {
      method: "balance",
      name: "Balance",
      functionNames: ["balanceOf"],
      inputs: { token: "Token address (0xeeee…eeee for the native currency)" },
      outputs: { amount: "The executing account's balance of token" },
    },
    {
      method: "split",
      name: "Split",
      functionNames: [],
      inputs: { amount, bps: "Array of shares in basis points summing to 10000" },
      outputs: { amounts: "One amount per share (index selects one)" },
    },
    {
      method: "minamountout",
      name: "Minimum amount out",
      functionNames: ["checkMinAmountOut"],
      inputs: {
        token: "Token address",
        amount: "Minimum balance increase of the receiver, in wei",
      },
      outputs: {},
    },
  ],
};
