/**
 * The command word layout of the project's command VM (contracts/CommandVM.sol), which is the
 * weiroll layout without its DELEGATECALL call type. contracts/README.md describes it in full.
 *
 * A command is one bytes32: `selector(4) | flags(1) | inputs(6) | output(1) | target(20)`.
 */
import { type Address, getAddress, type Hex, hexToBytes, size, toHex } from "viem";

/** CALL: the target may change state. */
export const CALL_TYPE_CALL = 0x01;
/** STATICCALL: for view and pure functions. */
export const CALL_TYPE_STATICCALL = 0x02;
/** CALL with value: the first input index names the slot holding the wei amount. */
export const CALL_TYPE_VALUE_CALL = 0x03;
/** The next command word holds up to 32 input indices. */
export const FLAG_EXTENDED_COMMAND = 0x40;
/** The whole return data is stored in the output slot as an ABI `bytes` value. */
export const FLAG_TUPLE_RETURN = 0x80;
/** High bit of an index byte: the slot holds a dynamic value. */
export const INDEX_DYNAMIC = 0x80;
/** Ends an input list; as the output byte, discards the return data. */
export const INDEX_END = 0xff;
/** Inputs that fit in a command word; more need an extended command. */
export const INLINE_INPUTS = 6;
/** Inputs one extended word can hold. */
export const MAX_INPUTS = 32;
/** State slots an index byte can name (0xfe and 0xff are reserved markers). */
export const MAX_STATE_SLOTS = 126;

export type CallType =
  | typeof CALL_TYPE_CALL
  | typeof CALL_TYPE_STATICCALL
  | typeof CALL_TYPE_VALUE_CALL;

/** The fields of one command, before packing. */
export type Command = {
  selector: Hex;
  callType: CallType;
  tupleReturn: boolean;
  /** Index bytes in argument order (for value calls, the value index first). */
  inputs: readonly number[];
  /** Output index byte (INDEX_END to discard). */
  output: number;
  target: Address;
};

/**
 * Packs a command into its word, plus the extended input word when it has more than six inputs.
 * @example encodeCommand({ selector: "0xa9059cbb", callType: 1, tupleReturn: false, inputs: [0, 1], output: 0xff, target })
 */
export function encodeCommand(command: Command): Hex[] {
  if (command.inputs.length > MAX_INPUTS) {
    throw new Error(`a command takes at most ${MAX_INPUTS} inputs, got ${command.inputs.length}`);
  }
  const extended = command.inputs.length > INLINE_INPUTS;
  const word = new Uint8Array(32);
  word.set(hexToBytes(command.selector), 0);
  word[4] =
    command.callType |
    (extended ? FLAG_EXTENDED_COMMAND : 0) |
    (command.tupleReturn ? FLAG_TUPLE_RETURN : 0);
  word.fill(INDEX_END, 5, 11);
  if (!extended) word.set(command.inputs, 5);
  word[11] = command.output;
  word.set(hexToBytes(command.target), 12);
  if (!extended) return [toHex(word)];
  const inputs = new Uint8Array(32).fill(INDEX_END);
  inputs.set(command.inputs, 0);
  return [toHex(word), toHex(inputs)];
}

/** The selector and target of a command word (to describe a failed command). */
export function decodeCommandTarget(word: Hex): { selector: Hex; target: Address } {
  if (size(word) !== 32) throw new Error(`a command word is 32 bytes, got ${size(word)}`);
  const bytes = hexToBytes(word);
  return { selector: toHex(bytes.slice(0, 4)), target: getAddress(toHex(bytes.slice(12))) };
}
