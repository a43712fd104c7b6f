import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BureauUnavailable, createHttpBureau } from '../../connectors/lending/bureau.ts';
import { freePort } from '../../platform/net.ts';

/**
 * The bureau client's failures say what happened, in the words a loan officer reads in the loan's
 * decision (the workflow takes them from the activity failure's cause; end to end in loans.test.ts):
 * a real socket to a closed port, a real server answering 503, a real server that never answers.
 */

const request = {
  reference: 'ref-1',
  applicant: { firstName: 'Jane', lastName: 'Doe' },
  amount: '5000',
  term: 12,
  productName: 'Personal 12',
};

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A bureau on a free loopback port that answers every request with `answer` (or never). */
async function bureauAnswering(answer?: (res: import('node:http').ServerResponse) => void) {
  server = createServer((_req, res) => answer?.(res));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const failureOf = async (url: string, timeoutMs = 2_000) => {
  const error = await createHttpBureau({ url, apiKey: 'k', timeoutMs })
    .check(request)
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BureauUnavailable);
  return (error as Error).message;
};

describe('credit bureau failures', () => {
  it('a refused connection is named as such', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    expect(await failureOf(url)).toBe('the credit bureau could not be reached: connection refused');
  });

  it('a 503 is named with its status text and the bureau’s own message', async () => {
    const url = await bureauAnswering((res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'unavailable', message: 'down for maintenance' } }));
    });
    expect(await failureOf(url)).toBe(
      'the credit bureau answered 503 Service Unavailable: down for maintenance',
    );
  });

  it('a bureau that never answers: its time limit is named', async () => {
    const url = await bureauAnswering();
    expect(await failureOf(url, 300)).toBe('the credit bureau did not answer within 0.3 s');
  });
});
