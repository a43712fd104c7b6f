/** One page of a list the account reads (GET /sms, /senderId, /numbers): `page` from 1, `size` per page. */
export interface Page<T> {
  page: number;
  size: number;
  items: T[];
}

/** The rows to skip before a page. */
export const offsetOf = (page: number, size: number) => (page - 1) * size;
