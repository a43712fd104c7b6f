import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { coApplicantSettingsAnswerSchema } from '../reference-data-schemas.ts';

/** `GET /Settings/Application/CoApplicant`: the tenant's co-applicant options of the application flow. */
export const settingsApplicationCoApplicantOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Settings/Application/CoApplicant'),
      tags: ['Settings'],
      summary: 'Co-applicant options of the application flow',
      description:
        'Whether a loan may have a co-applicant (`allowed`; else PUT Customer/Loans/{loanId}/CoApplicant is 409 ' +
        '`co_applicant_not_allowed`), whether the site should ask for one (`required`), the fields PUT CoApplicant ' +
        'requires besides the names (`requiredFields`, else 400 naming them) and the `relationship` values offered. ' +
        'Per tenant; the defaults (allowed, not required, names only, free relationship) until the operator sets them.',
      security: lendingSecurity.apiKey,
      responses: {
        200: {
          description: 'The co-applicant options',
          content: { 'application/json': { schema: coApplicantSettingsAnswerSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.coApplicantSettings(c.get('deps'), { tenantId: c.get('lendingTenant').id }), 200),
});
