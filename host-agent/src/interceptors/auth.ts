import * as grpc from '@grpc/grpc-js';

/** Common name of the verified client certificate of a call, or undefined without one. */
export function clientCommonName(call: Pick<grpc.ServerInterceptingCallInterface, 'getAuthContext'>): string | undefined {
  const commonName: unknown = call.getAuthContext().sslPeerCertificate?.subject?.CN;
  // Node gives an array when the subject holds the attribute more than once: refuse that.
  return typeof commonName === 'string' && commonName.length > 0 ? commonName : undefined;
}

/**
 * Lets a call through only when its client certificate's CN is an allowed client. The TLS layer
 * already refused certificates that do not chain to the link's CA (client certificates are
 * required), so this decides *which* holder of a valid certificate may call: a certificate
 * made for something else by the same CA gets PERMISSION_DENIED.
 */
export function clientIdentityInterceptor(allowedClients: readonly string[]): grpc.ServerInterceptor {
  const allowed = new Set(allowedClients);
  return (_method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            const commonName = clientCommonName(call);
            if (commonName === undefined) {
              call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: 'a client certificate with a common name is required' });
            } else if (!allowed.has(commonName)) {
              call.sendStatus({
                code: grpc.status.PERMISSION_DENIED,
                details: `client certificate CN "${commonName}" may not call this agent (AGENT_ALLOWED_CLIENTS)`,
              });
            } else {
              nextMetadata(metadata);
            }
          },
        });
      },
    });
}
