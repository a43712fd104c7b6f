import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loggablePath } from '../../api/app.ts';

describe('request log', () => {
  it('never records an identity hash that an interface puts in a path', () => {
    const userHash = `user_${randomBytes(32).toString('base64url')}`;
    const logged = loggablePath(`/openbanking/api/cgate/consents-request/${userHash}`);
    expect(logged).toBe('/openbanking/api/cgate/consents-request/user_<redacted>');
    expect(logged).not.toContain(userHash.slice(5));
  });

  it('keeps ordinary paths as they are', () => {
    expect(loggablePath('/openbanking/api/8/balance/iba_0123456789abcdef01234567')).toBe(
      '/openbanking/api/8/balance/iba_0123456789abcdef01234567',
    );
    expect(loggablePath('/collect/office/reg_bill.cgi')).toBe('/collect/office/reg_bill.cgi');
  });
});
