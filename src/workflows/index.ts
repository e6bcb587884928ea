/**
 * Workflow entry point, bundled into the Temporal sandbox: deterministic code only.
 */
export { sessionWorkflow } from './session';
export { turnWorkflow } from './turn';
export { budgetPoolWorkflow } from './budget-pool';
export { ratePoolWorkflow } from './rate-pool';
export { shellTaskWorkflow } from './shell-task';
export { batchCollectorWorkflow } from './batch-collector';
export { scheduledBatchWorkflow } from './scheduled-batch';
