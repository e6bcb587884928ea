import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';
import { errorText } from '../../../src/cli/error-text';

describe('errorText', () => {
  test("a Temporal client error shows its cause chain (the workflow's own message), not only what failed", () => {
    const e = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ message: 'submitMessage: the session is ending', type: 'Error' }),
    );
    expect(errorText(e)).toBe('Workflow Update failed: submitMessage: the session is ending');
    const nested = new WorkflowFailedError(
      'Workflow execution failed',
      new ChildWorkflowFailure(
        'default',
        { workflowId: 'w', runId: 'r' },
        'turnWorkflow',
        RetryState.NON_RETRYABLE_FAILURE,
        ApplicationFailure.create({ message: 'the model refused' }),
      ),
      RetryState.NON_RETRYABLE_FAILURE,
    );
    expect(errorText(nested)).toMatch(/^Workflow execution failed: .*: the model refused$/);
  });

  test('a message its cause repeats is shown once; non-errors and cycles end the chain', () => {
    const inner = new Error('connect ECONNREFUSED 127.0.0.1:7233');
    expect(errorText(new Error('connect ECONNREFUSED 127.0.0.1:7233', { cause: inner }))).toBe(inner.message);
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(errorText(a)).toBe('a: b');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(new Error('x', { cause: 'why' }))).toBe('x: why');
  });
});
