/**
 * What went wrong with an outbound HTTP call (webhooks, merchant notifications, billing callbacks),
 * in words an operator reads in an attempt record: a timeout, a socket error code, or the message.
 */
export function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no reply within ${timeoutMs} ms`;
  }
  if (error instanceof Error) {
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
