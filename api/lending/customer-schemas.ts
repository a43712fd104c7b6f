import { z } from '@hono/zod-openapi';
import { customerDetailsSchema } from '../../domain/lending/customers.ts';

/** Customers as the API answers them (the use cases: application/lending/customers.ts). */

/** The domain schema (built before zod is extended for OpenAPI, so described with meta). */
export const customerDetailsBody = customerDetailsSchema.meta({
  description: 'Personal details (decision 0037); every field optional, unknown fields refused',
});

export const customerRecordSchema = z
  .object({
    customerId: z.string().openapi({ example: 'cus_5f1c0e2a9b7d4c3e8a6b1f20' }),
    login: z.string().openapi({ example: 'jane.doe@example.com' }),
    origin: z.enum(['registration', 'management', 'back_office']).openapi({
      description: 'Customer/Register, Management/Customers/Create, or the back office',
    }),
    details: customerDetailsBody,
    detailsComplete: z.boolean().openapi({
      description: 'Whether every required detail is given (a loan application can leave Pre-Origination)',
    }),
    missingDetails: z.array(z.string()).openapi({ example: ['ssn', 'address.state'] }),
    disclaimerConfirmedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Customer');

export const customerSummarySchema = z
  .object({
    customerId: z.string(),
    login: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    birthDate: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    detailsComplete: z.boolean(),
    createdAt: z.string(),
  })
  .openapi('CustomerSummary');
