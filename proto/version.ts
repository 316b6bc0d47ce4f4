/**
 * Version of the agent contract in proto/devplein/agent/v1 (see proto/VERSIONS.md).
 * Bump the minor for every additive change to the .proto files; the major only changes with a
 * new package (devplein.agent.v2), which the agent then serves beside v1.
 */
export const CONTRACT_VERSION = '1.8.0';

/** Major part of CONTRACT_VERSION: the agent refuses calls whose major differs from its own. */
export const CONTRACT_MAJOR = 1;

/** gRPC metadata key in which the control plane sends its CONTRACT_VERSION on every call. */
export const CONTRACT_VERSION_METADATA_KEY = 'x-devplein-contract-version';
