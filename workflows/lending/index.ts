// Every workflow type of the lending platform (one file per process), for the worker's bundle.
export * from './loan.ts';
