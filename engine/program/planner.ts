/**
 * A typed planner for programs of the project's command VM: add contract calls (an ABI function
 * item and its arguments, where any argument may be the return value of an earlier call), then
 * `plan()` them into the `{ commands, state }` the VM runs.
 *
 * State slots are allocated by liveness: each distinct literal gets one slot, and a return value
 * takes a slot whose previous content nothing reads any more (a call may overwrite a slot it
 * reads, since the VM builds the calldata before writing the result).
 */
import {
  type AbiFunction,
  type AbiParameter,
  type AbiParameterToPrimitiveType,
  type Address,
  encodeAbiParameters,
  getAddress,
  type Hex,
  sliceHex,
  toFunctionSelector,
  toFunctionSignature,
} from "viem";
import {
  CALL_TYPE_CALL,
  CALL_TYPE_STATICCALL,
  CALL_TYPE_VALUE_CALL,
  type CallType,
  encodeCommand,
  INDEX_DYNAMIC,
  INDEX_END,
  MAX_INPUTS,
  MAX_STATE_SLOTS,
} from "./command-layout.js";

/** How a call's return value is kept: one word, one dynamic value, the raw bytes, or nothing. */
export type ProgramValueKind = "static" | "dynamic" | "raw" | "none";

/**
 * The return value of a planned call, usable as an argument of a later call. A `raw` value is
 * the call's whole return data as `bytes` (for functions returning several values).
 */
export class ProgramValue {
  /** @internal */
  constructor(
    readonly planner: ProgramPlanner,
    /** Position of the producing call in the planner. */
    readonly call: number,
    readonly kind: ProgramValueKind,
    /** ABI type of the value (`bytes` for raw return data). */
    readonly abiType: string,
  ) {}

  /** Whether the value is passed as a dynamic (variable-length) ABI value. */
  get dynamic(): boolean {
    return this.kind === "dynamic" || this.kind === "raw";
  }
}

/** A literal of type `T`, or a value returned by an earlier call; struct fields likewise. */
export type PlannerArg<T> =
  | T
  | ProgramValue
  | (T extends readonly unknown[]
      ? { [K in keyof T]: PlannerArg<T[K]> }
      : T extends Record<string, unknown>
        ? { [K in keyof T]: PlannerArg<T[K]> }
        : never);

/** Arguments for ABI `inputs`, each a literal or a ProgramValue. */
export type PlannerInputs<inputs extends readonly AbiParameter[]> = {
  [K in keyof inputs]: PlannerArg<AbiParameterToPrimitiveType<inputs[K], "inputs">>;
};

/** The arguments of `fn`, each a literal or a ProgramValue. */
export type PlannerArgs<fn extends AbiFunction> = PlannerInputs<fn["inputs"]>;

export type AddCallParameters<fn extends AbiFunction> = {
  /** Contract to call. */
  target: Address;
  /** The function's ABI item (e.g. from `getAbiItem` or `parseAbiItem`). */
  fn: fn;
  args: PlannerArgs<fn>;
  /** Wei to send; makes the command a value call (the function must be payable). */
  value?: bigint | ProgramValue;
  /** Keep the whole return data as `bytes` even when the function returns a single value. */
  returnRaw?: boolean;
  /** Short name of the step for error messages (default: the function name). */
  label?: string;
};

/** One planned call, for describing failures: the VM reports `commandIndex`. */
export type PlannedCall = {
  /** Position of the call's command word in `commands`. */
  commandIndex: number;
  /**
   * State slot that holds the call's return value after the program, for values passed to
   * {@link ProgramPlanner.keep}; otherwise undefined (the slot may be reused).
   */
  outputSlot: number | undefined;
  target: Address;
  functionName: string;
  signature: string;
  label: string;
};

/** A program ready for the VM. */
export type PlannedProgram = {
  commands: Hex[];
  state: Hex[];
  calls: PlannedCall[];
};

/** A call the planner cannot express, with the step and argument named. */
export class PlannerError extends Error {
  override name = "PlannerError";
}

type Input =
  | { kind: "literal"; bytes: Hex; dynamic: boolean }
  | { kind: "value"; value: ProgramValue };

type CallRecord = {
  target: Address;
  selector: Hex;
  callType: CallType;
  /** For value calls, the value first. */
  inputs: Input[];
  output: ProgramValue;
  functionName: string;
  signature: string;
  label: string;
};

/**
 * Builds a program call by call.
 * @example
 * const planner = new ProgramPlanner();
 * const shares = planner.add({ target: vault, fn: depositFn, args: [amount, executor] });
 * planner.add({ target: vault, fn: transferFn, args: [receiver, shares] });
 * const { commands, state } = planner.plan();
 */
export class ProgramPlanner {
  readonly #calls: CallRecord[] = [];
  readonly #kept = new Set<number>();

  /** Number of calls added so far. */
  get length(): number {
    return this.#calls.length;
  }

  /**
   * Adds a call and returns its return value, usable as an argument of later calls.
   * View and pure functions become STATICCALLs; a `value` makes a value call.
   */
  add<const fn extends AbiFunction>(params: AddCallParameters<fn>): ProgramValue {
    const { fn } = params;
    const index = this.#calls.length;
    const label = params.label ?? fn.name;
    const where = `call ${index} (${label})`;
    const args = params.args as readonly unknown[];
    if (args.length !== fn.inputs.length) {
      throw new PlannerError(
        `${where}: expected ${fn.inputs.length} arguments, got ${args.length}`,
      );
    }
    const inputs: Input[] = [];
    let callType: CallType = isReadOnly(fn) ? CALL_TYPE_STATICCALL : CALL_TYPE_CALL;
    if (params.value !== undefined) {
      if (fn.stateMutability !== "payable") {
        throw new PlannerError(`${where}: value sent to non-payable ${fn.name}`);
      }
      callType = CALL_TYPE_VALUE_CALL;
      inputs.push(
        ...this.#flatten({ type: "uint256", name: "value" }, params.value, `${where} value`),
      );
    }
    const labels = fn.inputs.map(
      (param, i) => `${where} argument ${i} (${param.name || param.type})`,
    );
    if (fn.inputs.some((param, i) => holdsValuesInStruct(param, args[i]))) {
      inputs.push(...this.#wordByWord(fn.inputs, args, labels));
    } else {
      fn.inputs.forEach((param, i) => {
        inputs.push(...this.#flatten(param, args[i], labels[i] as string));
      });
    }
    if (inputs.length > MAX_INPUTS) {
      throw new PlannerError(`${where}: ${inputs.length} input words exceed ${MAX_INPUTS}`);
    }
    const output = new ProgramValue(
      this,
      index,
      outputKind(fn, params.returnRaw ?? false),
      outputType(fn, params.returnRaw ?? false),
    );
    this.#calls.push({
      target: getAddress(params.target),
      selector: toFunctionSelector(fn),
      callType,
      inputs,
      output,
      functionName: fn.name,
      signature: toFunctionSignature(fn),
      label,
    });
    return output;
  }

  /**
   * Keeps `value` in its slot to the end of the program, so the final state (returned by
   * wallets and the delegate executor, e.g. in a simulation) holds it at `outputSlot`.
   */
  keep(value: ProgramValue): void {
    if (value.planner !== this) throw new PlannerError("keep: value from another planner");
    if (value.kind === "none") throw new PlannerError(`keep: call ${value.call} returns nothing`);
    this.#kept.add(value.call);
  }

  /** Allocates state slots and encodes the commands. */
  plan(): PlannedProgram {
    const calls = this.#calls;
    // The last call reading each literal and each return value.
    const literalLastUse = new Map<Hex, number>();
    const valueLastUse = new Array<number>(calls.length).fill(-1);
    calls.forEach((call, i) => {
      for (const input of call.inputs) {
        if (input.kind === "literal") literalLastUse.set(input.bytes, i);
        else valueLastUse[input.value.call] = i;
      }
    });
    for (const call of this.#kept) valueLastUse[call] = Number.POSITIVE_INFINITY;

    const state: Hex[] = [];
    // For each slot, the last call that reads its current content.
    const busyUntil: number[] = [];
    const literalSlot = new Map<Hex, number>();
    for (const [bytes, lastUse] of literalLastUse) {
      literalSlot.set(bytes, state.length);
      state.push(bytes);
      busyUntil.push(lastUse);
    }

    const valueSlot = new Array<number>(calls.length).fill(-1);
    const commands: Hex[] = [];
    const planned: PlannedCall[] = [];
    calls.forEach((call, i) => {
      const indices = call.inputs.map((input) => {
        if (input.kind === "literal") {
          const slot = literalSlot.get(input.bytes) ?? -1;
          return input.dynamic ? slot | INDEX_DYNAMIC : slot;
        }
        const slot = valueSlot[input.value.call] ?? -1;
        return input.value.dynamic ? slot | INDEX_DYNAMIC : slot;
      });
      const lastUse = valueLastUse[i] ?? -1;
      let output = INDEX_END;
      const kind = call.output.kind;
      if (lastUse > i && kind !== "none") {
        let slot = busyUntil.findIndex((until) => until <= i);
        if (slot === -1) {
          slot = state.length;
          state.push("0x");
          busyUntil.push(lastUse);
        } else {
          busyUntil[slot] = lastUse;
        }
        valueSlot[i] = slot;
        output = kind === "dynamic" ? slot | INDEX_DYNAMIC : slot;
      }
      planned.push({
        commandIndex: commands.length,
        outputSlot: this.#kept.has(i) ? valueSlot[i] : undefined,
        target: call.target,
        functionName: call.functionName,
        signature: call.signature,
        label: call.label,
      });
      commands.push(
        ...encodeCommand({
          selector: call.selector,
          callType: call.callType,
          tupleReturn: kind === "raw" && output !== INDEX_END,
          inputs: indices,
          output,
          target: call.target,
        }),
      );
    });
    if (state.length > MAX_STATE_SLOTS) {
      throw new PlannerError(
        `the program needs ${state.length} state slots; the VM has ${MAX_STATE_SLOTS}`,
      );
    }
    return { commands, state, calls: planned };
  }

  /** The input words of one argument: static structs and fixed arrays are spread word by word. */
  #flatten(param: AbiParameter, value: unknown, where: string): Input[] {
    if (value instanceof ProgramValue) {
      if (value.planner !== this) throw new PlannerError(`${where}: value from another planner`);
      if (value.kind === "none") {
        throw new PlannerError(`${where}: call ${value.call} returns nothing to use`);
      }
      const dynamic = isDynamic(param);
      if (value.dynamic !== dynamic) {
        throw new PlannerError(
          `${where}: expects a ${dynamic ? "dynamic" : "static"} ${param.type}, got the ${value.abiType} returned by call ${value.call}`,
        );
      }
      return [{ kind: "value", value }];
    }
    if (isDynamic(param)) {
      if (containsProgramValue(value)) {
        throw new PlannerError(
          `${where}: return values inside a dynamic ${param.type} are not supported`,
        );
      }
      // The VM expects the tail of a dynamic value: its encoding without the leading offset word.
      return [
        { kind: "literal", bytes: sliceHex(encodeLiteral(param, value, where), 32), dynamic: true },
      ];
    }
    const fixedArray = /^(.*)\[(\d+)\]$/.exec(param.type);
    if (fixedArray?.[1] !== undefined) {
      const element = { ...param, type: fixedArray[1] } as AbiParameter;
      const length = Number(fixedArray[2]);
      if (!Array.isArray(value) || value.length !== length) {
        throw new PlannerError(`${where}: expects ${length} elements`);
      }
      return value.flatMap((item, i) => this.#flatten(element, item, `${where}[${i}]`));
    }
    if (param.type === "tuple") {
      return componentsOf(param).flatMap((component, i) =>
        this.#flatten(component, fieldOf(value, component, i), `${where}.${component.name ?? i}`),
      );
    }
    return [{ kind: "literal", bytes: encodeLiteral(param, value, where), dynamic: false }];
  }

  /**
   * The arguments' whole ABI encoding, heads then tails, as static input words, the offsets of
   * the dynamic ones counted here. A dynamic slot is a whole tail the VM copies as it is, so a
   * return value in a dynamic struct's static field (an amount beside a `bytes` field) can only
   * be placed when every word of the call is an input of its own; the calldata is the same.
   */
  #wordByWord(params: readonly AbiParameter[], values: readonly unknown[], labels: string[]) {
    const parts = params.map((param, i) => {
      const where = labels[i] as string;
      return isDynamic(param)
        ? { head: undefined, tail: this.#tailWords(param, values[i], where) }
        : { head: this.#flatten(param, values[i], where), tail: [] };
    });
    let offset = parts.reduce((words, part) => words + (part.head?.length ?? 1), 0) * 32;
    const heads = parts.flatMap((part) => {
      if (part.head) return part.head;
      const head = wordInput(BigInt(offset));
      offset += part.tail.length * 32;
      return [head];
    });
    return [...heads, ...parts.flatMap((part) => part.tail)];
  }

  /** The tail of one dynamic argument of {@link #wordByWord}, word by word. */
  #tailWords(param: AbiParameter, value: unknown, where: string): Input[] {
    if (value instanceof ProgramValue) {
      throw new PlannerError(
        `${where}: a dynamic ${param.type} returned by call ${value.call} cannot be laid out beside return values in a struct`,
      );
    }
    if (!containsProgramValue(value)) {
      const tail = sliceHex(encodeLiteral(param, value, where), 32);
      return Array.from({ length: (tail.length - 2) / 64 }, (_, i) => ({
        kind: "literal" as const,
        bytes: `0x${tail.slice(2 + i * 64, 2 + (i + 1) * 64)}` as Hex,
        dynamic: false,
      }));
    }
    if (param.type !== "tuple") {
      throw new PlannerError(
        `${where}: return values inside a dynamic ${param.type} are not supported`,
      );
    }
    const components = componentsOf(param);
    return this.#wordByWord(
      components,
      components.map((component, i) => fieldOf(value, component, i)),
      components.map((component, i) => `${where}.${component.name ?? i}`),
    );
  }
}

function componentsOf(param: AbiParameter): readonly AbiParameter[] {
  return (param as { components: readonly AbiParameter[] }).components;
}

/** A struct's field, from its positional or named form. */
function fieldOf(value: unknown, component: AbiParameter, index: number): unknown {
  return Array.isArray(value)
    ? value[index]
    : (value as Record<string, unknown> | undefined)?.[component.name ?? String(index)];
}

function wordInput(value: bigint): Input {
  return {
    kind: "literal",
    bytes: encodeAbiParameters([{ type: "uint256" }], [value]),
    dynamic: false,
  };
}

/** A dynamic struct literal holding return values (not itself one): laid out word by word. */
function holdsValuesInStruct(param: AbiParameter, value: unknown): boolean {
  return (
    param.type === "tuple" &&
    isDynamic(param) &&
    !(value instanceof ProgramValue) &&
    containsProgramValue(value)
  );
}

function encodeLiteral(param: AbiParameter, value: unknown, where: string): Hex {
  try {
    return encodeAbiParameters([param], [value]);
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    throw new PlannerError(`${where}: cannot encode as ${param.type}: ${reason}`);
  }
}

function isReadOnly(fn: AbiFunction): boolean {
  return fn.stateMutability === "view" || fn.stateMutability === "pure";
}

/** Whether a parameter is encoded as a dynamic ABI value (behind an offset). */
export function isDynamic(param: AbiParameter): boolean {
  const type = param.type;
  if (type === "string" || type === "bytes" || type.endsWith("[]")) return true;
  const fixedArray = /^(.*)\[(\d+)\]$/.exec(type);
  if (fixedArray?.[1] !== undefined)
    return isDynamic({ ...param, type: fixedArray[1] } as AbiParameter);
  if (type === "tuple") {
    return (param as { components: readonly AbiParameter[] }).components.some(isDynamic);
  }
  return false;
}

function isCompound(param: AbiParameter): boolean {
  return param.type === "tuple" || param.type.endsWith("]");
}

function outputKind(fn: AbiFunction, returnRaw: boolean): ProgramValueKind {
  const [first, ...rest] = fn.outputs;
  if (returnRaw) return "raw";
  if (first === undefined) return "none";
  if (rest.length > 0) return "raw";
  if (isDynamic(first)) return "dynamic";
  // A single static struct or fixed array is several words: keep it raw.
  return isCompound(first) ? "raw" : "static";
}

function outputType(fn: AbiFunction, returnRaw: boolean): string {
  const [first, ...rest] = fn.outputs;
  if (
    returnRaw ||
    first === undefined ||
    rest.length > 0 ||
    (!isDynamic(first) && isCompound(first))
  ) {
    return "bytes";
  }
  return first.type;
}

function containsProgramValue(value: unknown): boolean {
  if (value instanceof ProgramValue) return true;
  if (Array.isArray(value)) return value.some(containsProgramValue);
  if (value !== null && typeof value === "object") {
    return Object.values(value).some(containsProgramValue);
  }
  return false;
}
