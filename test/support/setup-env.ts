import { inject } from 'vitest';

// Runs in each test worker before the test file: when the suite started its own PostgreSQL
// (test/support/global-setup.ts), its URL is DATABASE_URL here (test/support/database.ts) and in every
// process a test spawns (worker processes, `npm start`, migrations), as a CI machine's DATABASE_URL is.
const embeddedDatabaseUrl = inject('embeddedDatabaseUrl');
if (embeddedDatabaseUrl && !process.env.DATABASE_URL) process.env.DATABASE_URL = embeddedDatabaseUrl;
