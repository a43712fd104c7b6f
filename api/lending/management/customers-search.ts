import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerSummarySchema } from '../customer-schemas.ts';
import { lendingPath } from '../paths.ts';

/** Paging of Management/Customers/Search (decision 0037). */
export const SEARCH_PAGE = { defaultSize: 20, maxSize: 100 } as const;

const filter = (example: string, description: string) =>
  z.string().max(200).optional().openapi({ example, description });

/**
 * `GET /Management/Customers/Search`: customers matching every non-empty filter, paged by
 * `pageNumber` (from 1) and `pageSize` (1-100, default 20), with the total count.
 */
export const managementCustomersSearchOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/Customers/Search'),
      tags: ['Management'],
      summary: 'Search customers',
      description:
        'A customer matches when every non-empty filter matches: names and e-mail whole and case-insensitively, ' +
        'birth date exactly, phone by its + and digits, ssn and driver’s licence ignoring spaces, dashes and case. ' +
        `Oldest first; pageNumber from 1 (default 1), pageSize 1-${SEARCH_PAGE.maxSize} (default ${SEARCH_PAGE.defaultSize}).`,
      security: lendingSecurity.apiKey,
      request: {
        query: z.object({
          firstName: filter('Jane', 'First name'),
          lastName: filter('Doe', 'Last name'),
          birthDate: z
            .string()
            .regex(/^(\d{4}-\d{2}-\d{2})?$/, 'a date YYYY-MM-DD')
            .optional()
            .openapi({ example: '1990-04-01' }),
          email: filter('jane.doe@example.com', 'E-mail'),
          ssn: filter('123-45-6789', 'Social security number'),
          driverLicenseId: filter('D1234567', 'Driver’s licence'),
          phone: filter('+12025550143', 'Phone'),
          pageNumber: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ example: 1 }),
          pageSize: z.coerce
            .number()
            .int()
            .min(1)
            .max(SEARCH_PAGE.maxSize)
            .default(SEARCH_PAGE.defaultSize)
            .openapi({ example: SEARCH_PAGE.defaultSize }),
        }),
      },
      responses: {
        200: {
          description: 'A page of matching customers',
          content: {
            'application/json': {
              schema: z
                .object({
                  items: z.array(customerSummarySchema),
                  total: z.number().int(),
                  pageNumber: z.number().int(),
                  pageSize: z.number().int(),
                })
                .openapi('CustomerSearchPage'),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { pageNumber, pageSize, ...filters } = c.req.valid('query');
    const page = { pageNumber, pageSize };
    return c.json(
      await lending.searchCustomers(c.get('deps'), { tenantId: c.get('lendingTenant').id, filters, page }),
      200,
    );
  },
});
