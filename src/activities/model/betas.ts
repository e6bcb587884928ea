/** The `anthropic-beta` header of a request's betas (none: no header). */
export function betaHeaders(betas: readonly string[]): { headers?: Record<string, string> } {
  return betas.length > 0 ? { headers: { 'anthropic-beta': betas.join(',') } } : {};
}
