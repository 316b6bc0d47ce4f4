import * as grpc from '@grpc/grpc-js';
import { CONTRACT_VERSION, CONTRACT_VERSION_METADATA_KEY } from '@devplein/proto/version';
import { metadataString } from './metadata.ts';

const semver = /^(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.+-]*)?$/;

/** Outcome of comparing a caller's contract version with the agent's. */
export type ContractCheck = { ok: true } | { ok: false; message: string };

/**
 * Accepts any version with the agent's major; refuses a missing or malformed value and any
 * other major (proto/VERSIONS.md). Pure, so the rule is unit-tested apart from gRPC.
 */
export function checkContractVersion(callerVersion: string | undefined, agentVersion: string = CONTRACT_VERSION): ContractCheck {
  const agentMajor = Number(semver.exec(agentVersion)?.[1]);
  if (callerVersion === undefined || callerVersion.trim() === '') {
    return {
      ok: false,
      message: `missing metadata "${CONTRACT_VERSION_METADATA_KEY}": send the agent contract version the caller was built with (this agent speaks ${agentVersion})`,
    };
  }
  const match = semver.exec(callerVersion.trim());
  if (!match) {
    return { ok: false, message: `"${CONTRACT_VERSION_METADATA_KEY}" must be MAJOR.MINOR.PATCH, got "${callerVersion.slice(0, 40)}"` };
  }
  const callerMajor = Number(match[1]);
  if (callerMajor !== agentMajor) {
    return {
      ok: false,
      message: `contract version ${callerVersion.trim()} is not supported: this agent speaks ${agentVersion} (major ${agentMajor}); upgrade the ${callerMajor > agentMajor ? 'agent' : 'control plane'}`,
    };
  }
  return { ok: true };
}

/** Refuses calls whose contract version does not fit with FAILED_PRECONDITION. */
export function contractVersionInterceptor(agentVersion: string = CONTRACT_VERSION): grpc.ServerInterceptor {
  return (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            const check = checkContractVersion(metadataString(metadata, CONTRACT_VERSION_METADATA_KEY), agentVersion);
            if (check.ok) nextMetadata(metadata);
            else call.sendStatus({ code: grpc.status.FAILED_PRECONDITION, details: check.message });
          },
        });
      },
    });
}
