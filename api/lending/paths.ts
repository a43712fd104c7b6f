/** Where every tenant's interface is served (the spec's `https://{site_domain}/PublicApi/v7-12/`). */
export const LENDING_API_PREFIX = '/PublicApi/v7-12';

/** The route path of a spec path, e.g. `lendingPath('/Customer/Details')`. */
export const lendingPath = (specPath: string) => `${LENDING_API_PREFIX}${specPath}`;

/** The file uploads (Files, Management/Files, Migration/Files): streamed, not read whole before the operation. */
export const isLendingUploadPath = (path: string) =>
  /^\/lending\/PublicApi\/v7-12\/(Management\/|Migration\/)?Files\/Upload\/?$/.test(path);
