import { randomBytes } from 'node:crypto';
import { Client, Connection, WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import type { LendingActivities } from '../../activities/lending/index.ts';
import type { LoanRecord } from '../../activities/lending/loan.ts';
import { creditProductSchema } from '../../domain/lending/credit-products.ts';
import { type LoanInput, type LoanSnapshot, loanCreatedUpdate } from '../../domain/lending/loan-process.ts';
import { calculateSchedule } from '../../domain/lending/schedule.ts';
import { platformDataConverter } from '../../platform/payload-codec.ts';
import type { lendingLoan } from '../../workflows/lending/loan.ts';
import { eventually } from '../support/platform.ts';
import { TEST_CREDIT_PRODUCT } from './products-support.ts';

/**
 * The loan workflow with MOCKED activities on the run's real Temporal dev server, for the workflow tests
 * (test/lending/loan-workflow.test.ts, test/lending/disbursement-workflow.test.ts): a Worker on a task
 * queue of its own, the read model kept in memory by the mocked recordLoan, and loans started as the API
 * starts them.
 */

export type Loan = WorkflowHandle<typeof lendingLoan>;

export interface LoanWorkflowHarness {
  /** The tenant every loan of the harness belongs to. */
  tenantId: string;
  /** The mocked read model: every record of each loan, in order. */
  records: Map<string, LoanRecord[]>;
  /** Starts a loan as the API does (Update-with-Start): an Origination loan of the customer unless overridden. */
  startLoan(overrides?: Partial<LoanInput>): Promise<{ loan: Loan; loanId: string; first: LoanSnapshot }>;
  /**
   * Process answers once its request is recorded, the bureau's decision following through the workflow:
   * the loan as recorded with the decision that follows `processed` (as an integrator polls it).
   */
  decided(processed: Promise<LoanSnapshot>): Promise<LoanSnapshot>;
  stop(): Promise<void>;
}

/** The schedule activity as the platform's, of TEST_CREDIT_PRODUCT (whatever the loan's product name). */
const testLoanSchedule: LendingActivities['loanSchedule'] = async (request) =>
  calculateSchedule(creditProductSchema.parse(TEST_CREDIT_PRODUCT), {
    amount: request.amount,
    term: request.term,
    startDate: request.startDate,
  }).instalments.map(({ remainingBalance: _, ...instalment }) => instalment);

/**
 * Activities a harness may leave out: the schedule of TEST_CREDIT_PRODUCT, gateway payments that fail the
 * test, and the loan's signatures to announce (none here: SignDocument is the API's).
 */
type OptionalActivities =
  | 'loanSchedule'
  | 'chargeRepaymentCard'
  | 'registerRepaymentSlip'
  | 'signaturesToAnnounce'
  | 'signaturesAnnounced';
const unexpected = (name: string) => async (): Promise<never> => {
  throw new Error(`${name} was not expected in this test`);
};

/**
 * Starts a Worker of the loan workflow with `activities` (recordLoan is the harness's own read model;
 * loanSchedule, unless given, the schedule of TEST_CREDIT_PRODUCT; the gateway payments of decision
 * 0045, unless given, fail).
 */
export async function startLoanWorkflowHarness(
  name: string,
  activities: Omit<LendingActivities, 'recordLoan' | OptionalActivities> &
    Partial<Pick<LendingActivities, OptionalActivities>>,
): Promise<LoanWorkflowHarness> {
  const taskQueue = `${name}-${randomBytes(4).toString('hex')}`;
  const tenantId = `ten_${randomBytes(6).toString('hex')}`;
  const records = new Map<string, LoanRecord[]>();
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  // Sealed as the platform seals them (development key), so the harness runs what production runs.
  const dataConverter = platformDataConverter({ PAYLOAD_CODEC_KEYS: [] });
  const client = new Client({ connection, dataConverter });
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection: await NativeConnection.connect({ address }),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      dataConverter,
      activities: {
        ...({
          loanSchedule: testLoanSchedule,
          chargeRepaymentCard: unexpected('chargeRepaymentCard'),
          registerRepaymentSlip: unexpected('registerRepaymentSlip'),
          signaturesToAnnounce: async () => [],
          signaturesAnnounced: async () => {},
          ...activities,
          async recordLoan(record) {
            records.set(record.snapshot.loanId, [...(records.get(record.snapshot.loanId) ?? []), record]);
          },
        } satisfies LendingActivities),
        // The loan's events (decision 0088): its tenant has no endpoint here.
        webhookEndpointsOf: async () => [],
      },
    });
  } catch (error) {
    await connection.close();
    throw error;
  }
  const running = worker.run();

  async function startLoan(overrides: Partial<LoanInput> = {}) {
    const loanId = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
    const input: LoanInput = {
      tenantId,
      loanId,
      customerId: 'cus_1',
      terms: { productName: 'Personal 12', amount: '1500.00', term: 12 },
      currency: 'EUR',
      secured: false,
      status: 'Origination',
      createdBy: { role: 'customer', id: 'usr_1' },
      multipleOffers: false,
      bureau: { requestTimeoutMs: 1_000, attempts: 1 },
      ...overrides,
    };
    const workflowId = `lending-loan-${tenantId}-${loanId}`;
    const first = await client.workflow.executeUpdateWithStart(loanCreatedUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation<typeof lendingLoan>('lendingLoan', {
        workflowId,
        taskQueue,
        workflowIdConflictPolicy: 'FAIL',
        args: [input],
      }),
    });
    return { loan: client.workflow.getHandle<typeof lendingLoan>(workflowId), loanId, first };
  }

  async function decided(processed: Promise<LoanSnapshot>): Promise<LoanSnapshot> {
    const { loanId, version } = await processed;
    return eventually(
      async () =>
        records
          .get(loanId)
          ?.find(
            (record) =>
              record.snapshot.version > version && record.change?.comments?.startsWith('credit bureau:'),
          )?.snapshot,
      20_000,
      `the decision of loan ${loanId}`,
    );
  }

  return {
    tenantId,
    records,
    startLoan,
    decided,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
