import { creditProductSchema } from '../domain/lending/credit-products.ts';
import { calculateSchedule, type Schedule } from '../domain/lending/schedule.ts';
import { decimalSchedule } from '../test/lending/schedule-oracle.ts';

/**
 * `npx tsx bench/schedule-cpu.ts`: CPU per 360-instalment schedule (decision 0072), the integer
 * implementation and the decimal.js one it replaced (kept as the differential test's oracle), in
 * alternating rounds so both see the same load on a shared machine. Figures, not pass/fail.
 */
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PER_ROUND = Number(process.env.PER_ROUND ?? 300);

const product = creditProductSchema.parse({
  name: 'Mortgage 30',
  currency: 'EUR',
  secured: false,
  amount: { min: '1000.00', max: '1000000.00' },
  term: { min: 12, max: 360 },
  annualInterestRate: '5.25',
  amortisation: 'equal_instalments',
  fees: { originationPercent: '1.5', originationFixed: '20.00', monthly: '2.00' },
});
const terms = { amount: '150000.00', term: 360, startDate: '2026-01-01' };

/** CPU milliseconds (user + system) per call of `calculate`, over `count` calls. */
function cpuPerSchedule(calculate: () => Schedule, count: number): number {
  const start = process.cpuUsage();
  for (let index = 0; index < count; index++) calculate();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / count;
}

const implementations = {
  'decimal.js (before)': () => decimalSchedule(product, terms),
  'minor units (after)': () => calculateSchedule(product, terms),
};
if (
  JSON.stringify(implementations['decimal.js (before)']()) !==
  JSON.stringify(calculateSchedule(product, terms))
) {
  throw new Error('the two implementations disagree');
}
const figures = new Map<string, number[]>(Object.keys(implementations).map((name) => [name, []]));
for (const calculate of Object.values(implementations)) cpuPerSchedule(calculate, PER_ROUND); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, calculate] of Object.entries(implementations)) {
    figures.get(name)!.push(cpuPerSchedule(calculate, PER_ROUND));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, values] of figures) {
  console.log(
    `${name}: ${median(values).toFixed(3)} ms CPU per ${terms.term}-instalment schedule ` +
      `(median of ${ROUNDS} rounds of ${PER_ROUND}; rounds ${values.map((v) => v.toFixed(3)).join(', ')})`,
  );
}
const schedule = calculateSchedule(product, terms);
const serialise = cpuPerSchedule(() => {
  JSON.stringify(schedule);
  return schedule;
}, PER_ROUND);
console.log(`for scale: JSON.stringify of that schedule ${serialise.toFixed(3)} ms CPU`);
