/**
 * The bound on a prompt that work scheduled for later runs (`CronCreate`, `ScheduleWakeup`): each
 * fire sends it as a user message, so one too large for a request would fail every fire. 2.1.328
 * sets no bound; the runner's is its tool results' cap (`maxResultSizeChars`, 100,000).
 */
export const SCHEDULED_PROMPT_MAX_CHARS = 100_000;

/**
 * The error of a scheduled prompt over {@link SCHEDULED_PROMPT_MAX_CHARS}.
 * @param chars the prompt's length, UTF-16 code units (JavaScript's `length`)
 */
export function scheduledPromptTooLongText(chars: number): string {
  return (
    `The prompt is ${chars} characters; a scheduled prompt is at most ${SCHEDULED_PROMPT_MAX_CHARS} ` +
    '(it is sent at every fire). Write the details to a file and have the prompt refer to it.'
  );
}
