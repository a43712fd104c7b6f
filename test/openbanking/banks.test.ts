import { ScheduleOverlapPolicy } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBankDirectoryActivities } from '../../activities/openbanking/bank-directory.ts';
import { enrolAgent } from '../../credentials/openbanking/identity.ts';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { bankDirectoryScheduleId } from '../../domain/openbanking/processes.ts';
import { createLogger } from '../../platform/logger.ts';
import {
  type EnrolledUser,
  enrolUser,
  type ObCall,
  openBankingClient,
} from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The bank endpoints of the open-banking gateway over HTTP: GET banks (6, 7, 8; country from 7),
 * GET /api/8/banks/{bankHash}, POST bank/{bankHash} (SCA details) and the public maintenance report,
 * against the bank directory the platform read from the sandbox banks at start.
 */

let platform: TestPlatform;
let call: ObCall;
let user: EnrolledUser;

const bankA = bankHashOf('bank-a');
const bankB = bankHashOf('bank-b');
const bankC = bankHashOf('bank-c');

beforeAll(async () => {
  platform = await startTestPlatform();
  call = openBankingClient(`${platform.apiUrl}/openbanking`);
  const agent = await enrolAgent(platform.db, { name: 'Bank test agent' });
  user = await enrolUser(call, agent.agentHash);
});
afterAll(async () => {
  await platform?.stop();
});

const asUser = () => ({ headers: { 'x-user-hash': user.userHash } });
const names = (body: unknown) => (body as { banks?: { name: string }[] }).banks?.map((bank) => bank.name);

const fieldError = (field: string) => ({
  error: {
    code: 'validation_failed',
    message: 'The request is not valid',
    fields: [{ field, message: expect.any(String) }],
  },
});

/** Runs the bank directory refresh now (the schedule also runs every OPENBANKING_BANK_REFRESH_INTERVAL). */
// BUFFER_ONE: a refresh still running from an earlier trigger must not swallow this one (the schedule's
// own policy, SKIP, would drop it when the machine is busy).
const refreshNow = () =>
  platform.client.schedule
    .getHandle(bankDirectoryScheduleId(platform.config.TEMPORAL_TASK_QUEUE))
    .trigger(ScheduleOverlapPolicy.BUFFER_ONE);

async function setBankCMaintenance(
  notices: { id: string; startsAt: string; endsAt: string; message: string }[],
) {
  const answer = await fetch(`${platform.sandbox.banks.url}/bank-c/sandbox/maintenance`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ notices }),
  });
  expect(answer.status).toBe(200);
}

describe('GET banks', () => {
  it.each([6, 7, 8])('version %i lists the sandbox banks with their flow and paging support', async (v) => {
    const { status, body } = await call('GET', `/api/${v}/banks`, asUser());
    expect(status).toBe(200);
    expect(body.banks).toEqual([
      // The SCA approaches as other banks run them (decision 0061), listed by country first.
      expect.objectContaining({ name: 'Sandbox Bank D', country: 'AT', bankFlowType: 'decoupled' }),
      expect.objectContaining({ name: 'Sandbox Bank E', country: 'AT', bankFlowType: 'embedded' }),
      // OAuth2 as SCA approach (decision 0067): to the user and the API, a redirect.
      expect.objectContaining({ name: 'Sandbox Bank O', country: 'AT', bankFlowType: 'redirect' }),
      expect.objectContaining({ name: 'Sandbox Bank R', country: 'AT', bankFlowType: 'redirect' }),
      {
        bankHash: bankA,
        name: 'Sandbox Bank A',
        country: 'BG',
        bic: 'SBXABGSF',
        bankFlowType: 'redirect',
        supportsPagedTransactions: false,
        maintenance: [],
      },
      expect.objectContaining({ bankHash: bankB, name: 'Sandbox Bank B', supportsPagedTransactions: true }),
      expect.objectContaining({ bankHash: bankC, name: 'Sandbox Bank C', country: 'RO', bic: 'SBXCROBU' }),
    ]);
  });

  it('does not exist in version 9', async () => {
    const { status, body } = await call('GET', '/api/9/banks', asUser());
    expect(status).toBe(404);
    expect(body.error?.code).toBe('route_not_found');
  });

  it.each([7, 8])('version %i filters by country (either case)', async (v) => {
    expect(names((await call('GET', `/api/${v}/banks?country=RO`, asUser())).body)).toEqual([
      'Sandbox Bank C',
    ]);
    expect(names((await call('GET', `/api/${v}/banks?country=bg`, asUser())).body)).toEqual([
      'Sandbox Bank A',
      'Sandbox Bank B',
    ]);
    expect(names((await call('GET', `/api/${v}/banks?country=DE`, asUser())).body)).toEqual([]);
  });

  it('version 6 has no country parameter: a country query is not read', async () => {
    const { status, body } = await call('GET', '/api/6/banks?country=RO', asUser());
    expect(status).toBe(200);
    expect(names(body)).toHaveLength(7);
    expect((await call('GET', '/api/6/banks?country=nonsense', asUser())).status).toBe(200);
  });

  it.each([
    [7, 'XX'],
    [8, 'ROU'],
    [8, '1'],
  ])('version %i refuses country=%s with 400 naming the field', async (v, country) => {
    const { status, body } = await call('GET', `/api/${v}/banks?country=${country}`, asUser());
    expect(status).toBe(400);
    expect(body).toEqual(fieldError('country'));
  });
});

describe('GET /api/8/banks/{bankHash}', () => {
  it('answers one bank; country must match when given', async () => {
    const { status, body } = await call('GET', `/api/8/banks/${bankC}`, asUser());
    expect(status).toBe(200);
    expect(body).toMatchObject({
      bankHash: bankC,
      name: 'Sandbox Bank C',
      country: 'RO',
      bankFlowType: 'redirect',
    });
    expect((await call('GET', `/api/8/banks/${bankC}?country=RO`, asUser())).status).toBe(200);
    const other = await call('GET', `/api/8/banks/${bankC}?country=BG`, asUser());
    expect(other.status).toBe(404);
    expect(other.body.error?.code).toBe('not_found');
  });

  it('unknown bank → 404, malformed hash or country → 400', async () => {
    const unknown = await call('GET', `/api/8/banks/${'0'.repeat(24)}`, asUser());
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'Bank not found' } });
    const malformed = await call('GET', '/api/8/banks/not-a-hash', asUser());
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(fieldError('bankHash'));
    expect((await call('GET', `/api/8/banks/${bankA}?country=XX`, asUser())).body).toEqual(
      fieldError('country'),
    );
  });

  it.each([6, 7, 9])('does not exist in version %i', async (v) => {
    expect((await call('GET', `/api/${v}/banks/${bankA}`, asUser())).status).toBe(404);
  });
});

describe('POST bank/{bankHash}', () => {
  it.each([6, 7, 8])(
    'version %i answers the redirect SCA details and how to start the consent',
    async (v) => {
      const { status, body } = await call('POST', `/api/${v}/bank/${bankA}`, {
        headers: { 'x-user-hash': user.userHash, 'user-agent': 'Mozilla/5.0 (test)' },
      });
      expect(status).toBe(200);
      expect(body).toEqual({
        bank: expect.objectContaining({ bankHash: bankA, name: 'Sandbox Bank A' }),
        bankFlowType: 'redirect',
        scaApproach: 'REDIRECT',
        inputs: [],
        start: { method: 'POST', path: `/openbanking/api/${v}/consent`, body: { bankHash: bankA } },
        redirect: {
          responseField: 'scaRedirectUrl',
          method: 'GET',
          returnPath: '/openbanking/redirect/{app}/state/{state}',
        },
        maintenanceActive: false,
        instructions: expect.stringContaining('scaRedirectUrl'),
      });
    },
  );

  it('bankFlowType must be the bank’s flow', async () => {
    expect((await call('POST', `/api/8/bank/${bankA}?bankFlowType=redirect`, asUser())).status).toBe(200);
    const embedded = await call('POST', `/api/8/bank/${bankA}?bankFlowType=embedded`, asUser());
    expect(embedded.status).toBe(400);
    expect(embedded.body).toEqual({
      error: {
        code: 'validation_failed',
        message: 'The request is not valid',
        fields: [{ field: 'bankFlowType', message: 'Sandbox Bank A supports redirect only' }],
      },
    });
    expect((await call('POST', `/api/8/bank/${bankA}?bankFlowType=carrier-pigeon`, asUser())).body).toEqual(
      fieldError('bankFlowType'),
    );
  });

  it('unknown bank → 404; not in version 9', async () => {
    expect((await call('POST', `/api/7/bank/${'f'.repeat(24)}`, asUser())).status).toBe(404);
    expect((await call('POST', `/api/9/bank/${bankA}`, asUser())).status).toBe(404);
  });
});

describe('identity', () => {
  const endpoints: [string, string][] = [
    ['GET', '/api/6/banks'],
    ['GET', '/api/7/banks'],
    ['GET', '/api/8/banks'],
    ['GET', `/api/8/banks/${bankA}`],
    ['POST', `/api/6/bank/${bankA}`],
    ['POST', `/api/7/bank/${bankA}`],
    ['POST', `/api/8/bank/${bankA}`],
  ];

  it.each(endpoints)('%s %s without x-user-hash → 401', async (method, path) => {
    const { status, body } = await call(method, path);
    expect(status).toBe(401);
    expect(body.error?.code).toBe('unauthorized');
  });

  it.each(endpoints)('%s %s with an unknown x-user-hash → 401', async (method, path) => {
    const { status } = await call(method, path, {
      headers: { 'x-user-hash': 'user_unknownunknownunknownunknownunknown123' },
    });
    expect(status).toBe(401);
  });
});

describe('GET /api/8/reports/bank-maintenance', () => {
  afterAll(async () => {
    await fetch(`${platform.sandbox.banks.url}/bank-c/sandbox/maintenance`, { method: 'DELETE' });
  });

  it('reports a window a bank announces without any credential', async () => {
    const startsAt = new Date(Date.now() + 86_400_000).toISOString();
    const endsAt = new Date(Date.now() + 86_400_000 + 7_200_000).toISOString();
    await setBankCMaintenance([
      { id: 'weekly', startsAt, endsAt, message: 'Planned maintenance every Sunday 01:00–03:00 UTC' },
    ]);
    await refreshNow();
    const { status, body } = await eventually(async () => {
      const answer = await call<{ notices: Record<string, unknown>[] }>(
        'GET',
        '/api/8/reports/bank-maintenance',
      );
      return answer.body.notices.length > 0 ? answer : undefined;
    });
    expect(status).toBe(200);
    expect(body.notices).toEqual([
      expect.objectContaining({
        bankHash: bankC,
        bankName: 'Sandbox Bank C',
        country: 'RO',
        message: expect.stringContaining('every Sunday'),
      }),
    ]);
  });

  it('shows a window the bank opens, once refreshed; banks and SCA details show it too', async () => {
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    await setBankCMaintenance([{ id: 'core-upgrade', startsAt, endsAt, message: 'Core banking upgrade' }]);
    await refreshNow();

    const notice = await eventually(
      async () => {
        const { body } = await call<{ notices: Record<string, unknown>[] }>(
          'GET',
          '/api/8/reports/bank-maintenance',
        );
        return body.notices.find((entry) => entry.noticeId === 'core-upgrade');
      },
      20_000,
      'the maintenance notice in the report',
    );
    expect(notice).toEqual({
      bankHash: bankC,
      bankName: 'Sandbox Bank C',
      country: 'RO',
      noticeId: 'core-upgrade',
      startsAt,
      endsAt,
      message: 'Core banking upgrade',
      active: true,
      fetchedAt: expect.any(String),
    });

    const { body } = await call<{ banks: { bankHash: string; maintenance: unknown[] }[] }>(
      'GET',
      '/api/8/banks?country=RO',
      asUser(),
    );
    expect(body.banks[0]!.maintenance).toEqual([
      { noticeId: 'core-upgrade', startsAt, endsAt, message: 'Core banking upgrade', active: true },
    ]);
    expect((await call('POST', `/api/8/bank/${bankC}`, asUser())).body.maintenanceActive).toBe(true);

    // The window is closed at the bank: the next refresh clears it.
    await setBankCMaintenance([]);
    await refreshNow();
    await eventually(
      async () => {
        const { body: report } = await call<{ notices: unknown[] }>('GET', '/api/8/reports/bank-maintenance');
        return report.notices.length === 0 ? true : undefined;
      },
      20_000,
      'the notice to go',
    );
  });

  it.each([6, 7])('does not exist in version %i', async (v) => {
    expect((await call('GET', `/api/${v}/reports/bank-maintenance`)).status).toBe(404);
  });
});

describe('bank directory from configuration', () => {
  it('adds the banks of OPENBANKING_BANKS and retires a bank that leaves the configuration', async () => {
    const logger = createLogger('silent');
    const extra = {
      code: 'config-bank',
      name: 'Configured Bank',
      country: 'DE',
      bic: 'CONFDEFFXXX',
      xs2aBaseUrl: 'https://xs2a.example.com/psd2',
      linkHosts: [],
      bankFlowType: 'embedded' as const,
      supportsPagedTransactions: false,
    };
    const withExtra = createBankDirectoryActivities({
      db: platform.db,
      config: { ...platform.config, OPENBANKING_BANKS: [extra] },
      logger,
    });
    const synced = await withExtra.syncBankDirectory();
    expect(synced.directoryError).toBeNull();
    expect(synced.bankHashes).toHaveLength(8);
    const hash = bankHashOf('config-bank');
    const { body } = await call('POST', `/api/8/bank/${hash}`, asUser());
    expect(body).toMatchObject({
      bankFlowType: 'embedded',
      scaApproach: 'EMBEDDED',
      inputs: [
        { name: 'psuId', type: 'text', label: 'User ID at your bank', required: true },
        { name: 'password', type: 'password', label: 'Online banking password', required: true },
      ],
      redirect: null,
    });

    await createBankDirectoryActivities({
      db: platform.db,
      config: platform.config,
      logger,
    }).syncBankDirectory();
    expect((await call('GET', `/api/8/banks/${hash}`, asUser())).status).toBe(404);
    expect(names((await call('GET', '/api/8/banks', asUser())).body)).toHaveLength(7);
  });
});
