/**
 * Temporal's OpenTelemetry activity interceptor (`@temporalio/interceptors-opentelemetry`), set on
 * the runner's workers when traces are on: each activity attempt is a `RunActivity:<type>` span
 * (with `temporalActivityId`, `temporalWorkflowId`, `temporalRunId`), the parent of the runner's
 * own spans inside it. Activity-side only: it adds nothing to workflow history.
 */
import type { Tracer } from '@opentelemetry/api';
import { OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';

/** Worker options adding the interceptor; none when `tracer` is absent. */
export function activitySpanInterceptors(tracer: Tracer | undefined): Pick<WorkerOptions, 'interceptors'> {
  if (!tracer) return {};
  return {
    interceptors: { activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }) })] },
  };
}
