import type { UseCaseDeps } from '../../application/shared/deps.ts';

export interface AppEnv {
  Variables: {
    deps: UseCaseDeps;
    requestId: string;
  };
}
