/**
 * The devnet's deployment file as the devnet writes it. Its shape, its path and its reader live in
 * `deployment-file.ts` at the root, which the service reads without loading devnet code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type Deployment, deploymentPath } from "../deployment-file.js";

export type {
  AaveV3Deployment,
  AaveV3Reserve,
  BalancerV2DeployedPool,
  BalancerV2Deployment,
  DeployedToken,
  DeployedVault,
  Deployment,
  ExecutionLayerAddresses,
  UniswapV3ForkDeployment,
  UniswapV4Deployment,
  UniswapV4PoolKey,
} from "../deployment-file.js";
export { deploymentPath, readDeployment } from "../deployment-file.js";

/** Writes `deployment` as the file `readDeployment` reads. */
export function writeDeployment(deployment: Deployment, path = deploymentPath()): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(deployment, null, 2)}\n`);
}
