/**
 * A client connection closed while one of its calls waits to retry.
 *
 * `@temporalio/client`'s retry interceptor (1.23.0, `grpc-retry.ts`) schedules each retry of a
 * failed call (UNAVAILABLE while the server restarts, RESOURCE_EXHAUSTED) on a timer. When the
 * connection is closed before that timer fires, the retry asks the closed channel for a call and
 * gRPC throws "Channel has been shut down" from inside the timer: an uncaught exception that
 * kills the process, long after the code that closed the connection went on. Closing a client
 * while a call retries is normal (a CLI exiting on Ctrl-C while the server is down, a test
 * tearing down, an SDK user disposing its engine), so every grpc-js connection the runner opens
 * puts {@link closedChannelGuard} below the retry interceptor: the retry then ends with
 * CANCELLED, which is not retried, and the caller's promise rejects instead.
 */
import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/** The text of the call's error when the connection was closed before it could be (re)tried. */
export const CONNECTION_CLOSED_DETAILS = 'the Temporal client connection was closed';

/** grpc-js's error when a call is created on a closed channel (`internal-channel.ts`). */
const CHANNEL_SHUT_DOWN = /Channel has been shut down/;

/** What `InterceptingCall` wraps (grpc-js does not export the interface's name). */
type InterceptingCallInterface = ConstructorParameters<typeof InterceptingCall>[0];

/** A call that never reached the server: it ends with CANCELLED as soon as it starts. */
function closedCall(): InterceptingCallInterface {
  return {
    start(_metadata, listener) {
      setImmediate(() =>
        listener?.onReceiveStatus?.({
          code: status.CANCELLED,
          details: CONNECTION_CLOSED_DETAILS,
          metadata: new Metadata(),
        }),
      );
    },
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    sendMessageWithContext: () => undefined,
    sendMessage: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    getAuthContext: () => null,
  };
}

/**
 * A gRPC interceptor that turns "the channel is closed" into a call ending with CANCELLED.
 * @throws whatever else creating the call throws.
 */
export const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (e) {
    if (e instanceof Error && CHANNEL_SHUT_DOWN.test(e.message)) return new InterceptingCall(closedCall());
    throw e;
  }
};

/**
 * The interceptors of every `Connection.connect` of the runner: Temporal's default retry, then
 * {@link closedChannelGuard} (gRPC runs the first one outermost).
 */
export function clientInterceptors(): Interceptor[] {
  return [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), closedChannelGuard];
}
