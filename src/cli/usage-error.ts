/** Thrown for a bad flag value; the CLI prints it and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
