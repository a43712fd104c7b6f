import type { Middleware } from 'openapi-fetch';

/**
 * What the demo's typed clients (clients/, decision 0058) share: each call printed as the demo prints its
 * steps, and a typed answer or a thrown error naming the step.
 */

/**
 * Prints `METHOD /path → status` for every call of a client; `withQuery` adds the query string (without
 * the messaging access token `at`).
 */
export function printCalls({ withQuery = false }: { withQuery?: boolean } = {}): Middleware {
  return {
    onResponse({ request, response }) {
      const url = new URL(request.url);
      url.searchParams.delete('at');
      const query = withQuery && url.search ? decodeURIComponent(url.search) : '';
      console.log(`   ${request.method} ${url.pathname}${query} → ${response.status}`);
    },
  };
}

interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The answer's status is `status`, else the step fails with the error body. */
export function expectStatus<A extends Answer>(answer: A, status: number, what: string): A {
  if (answer.response.status !== status) {
    throw new Error(`${what} failed (${answer.response.status}): ${JSON.stringify(answer.error)}`);
  }
  return answer;
}

/** The body of an answer with `status`, else the step fails with the error body. */
export function bodyOf<A extends Answer>(answer: A, status: number, what: string): NonNullable<A['data']> {
  expectStatus(answer, status, what);
  if (answer.data === undefined || answer.data === null) throw new Error(`${what}: the answer has no body`);
  return answer.data as NonNullable<A['data']>;
}
