/**
 * Does the node simulate on its head block with that block's state? Transfers of 1 wei are mined
 * back to back (anvil's automine, one block each) while this asks `eth_simulateV1` on the head
 * block N for the receiver's balance (a state-override helper returns `BALANCE`); once N is no
 * longer the head it asks again, and `eth_getBalance` on N. A node that answers on N's state
 * gives the same three numbers every time.
 *
 *     npx tsx bench/anvil-head-race.ts [--seconds 15]
 *
 * Results: bench/results/load.md (the route's "simulated the same transaction twice with
 * different results" 503s under activity).
 */
import { parseArgs } from "node:util";
import { type Hex, numberToHex } from "viem";
import { startTestAnvil } from "../test/harness/anvil.js";
import { jsonRpc } from "../test/harness/json-rpc.js";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "15" } } });
const seconds = Number(values.seconds);

/** Anvil's first default account (funded), the receiver and where the helper's code is placed. */
const SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const RECEIVER = "0x00000000000000000000000000000000000000b0";
const HELPER = "0x00000000000000000000000000000000000000c0";
/** PUSH20 receiver, BALANCE, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN. */
const HELPER_CODE = `0x73${RECEIVER.slice(2)}3160005260206000f3` as Hex;

const anvil = await startTestAnvil();
try {
  const rpc = <T>(method: string, params: unknown[] = []) => jsonRpc<T>(anvil.url, method, params);
  const simulatedBalance = async (block: Hex) => {
    const [result] = await rpc<{ calls: { returnData: Hex }[] }[]>("eth_simulateV1", [
      {
        blockStateCalls: [
          {
            stateOverrides: { [HELPER]: { code: HELPER_CODE } },
            calls: [{ from: SENDER, to: HELPER, data: "0x" }],
          },
        ],
      },
      block,
    ]);
    return BigInt(result?.calls[0]?.returnData ?? "0x");
  };

  let sending = true;
  const sender = (async () => {
    let sent = 0;
    while (sending) {
      await rpc("eth_sendTransaction", [{ from: SENDER, to: RECEIVER, value: numberToHex(1) }]);
      sent++;
    }
    return sent;
  })();

  let checked = 0;
  let differed = 0;
  const examples: string[] = [];
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const head = await rpc<Hex>("eth_blockNumber");
    const onHead = await simulatedBalance(head);
    while ((await rpc<Hex>("eth_blockNumber")) === head) {}
    const later = await simulatedBalance(head);
    const balance = BigInt(await rpc<Hex>("eth_getBalance", [RECEIVER, head]));
    checked++;
    if (onHead !== later || onHead !== balance) {
      differed++;
      if (examples.length < 3) {
        examples.push(
          `block ${BigInt(head)}: ${onHead} wei simulated on the head, ${later} simulated after it, ${balance} by eth_getBalance`,
        );
      }
    }
  }
  sending = false;
  const sent = await sender;
  console.log(
    `${sent} transfers mined in ${seconds} s; ${checked} head blocks checked, ${differed} simulated on the head with a balance the block does not hold`,
  );
  for (const example of examples) console.log(`  ${example}`);
} finally {
  await anvil.stop();
}
