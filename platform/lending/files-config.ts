import { z } from 'zod';
import { optionalUrl, parsedText } from '../config-fields.ts';

/** A comma- or space-separated list of media types (`type/subtype`), lower-cased. */
function parseMediaTypes(text: string): string[] {
  const types = text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((type) => type.toLowerCase());
  for (const type of types) {
    if (!/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type))
      throw new Error(`"${type}" is not a media type like application/pdf`);
  }
  if (types.length === 0) throw new Error('must name at least one media type');
  return types;
}

/**
 * Files of the lending platform (docs/lending.md "Files and user documents"): uploads larger than
 * LENDING_FILE_MAX_BYTES are refused (413 `file_too_large`), and of a media type outside
 * LENDING_FILE_TYPES (415 `file_type_not_allowed`). The content is kept outside the database:
 * LENDING_FILE_STORAGE `local` in LENDING_FILE_DIR (default DATA_DIR/lending-files), or `s3` in the
 * bucket LENDING_S3_BUCKET of an S3-compatible service (LENDING_S3_ENDPOINT for one other than AWS,
 * then usually LENDING_S3_FORCE_PATH_STYLE=true; credentials LENDING_S3_ACCESS_KEY_ID and
 * LENDING_S3_SECRET_ACCESS_KEY, else the AWS SDK's default chain).
 */
export const lendingFilesConfig = z.object({
  LENDING_FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  LENDING_FILE_TYPES: parsedText('application/pdf,image/jpeg,image/png', parseMediaTypes),
  LENDING_FILE_STORAGE: z.enum(['local', 's3']).default('local'),
  LENDING_FILE_DIR: z.string().optional(),
  LENDING_S3_BUCKET: z.string().min(3).max(63).optional(),
  LENDING_S3_ENDPOINT: optionalUrl,
  LENDING_S3_REGION: z.string().min(1).default('us-east-1'),
  LENDING_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  LENDING_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  LENDING_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** A key prefix inside the bucket (several platforms sharing one bucket), e.g. `lending/`. */
  LENDING_S3_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+\/)*$/, 'must be folder names each ending with /')
    .default(''),
});
