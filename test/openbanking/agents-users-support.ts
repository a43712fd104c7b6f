import type { ErrorBody, ObCall } from '../support/openbanking-client.ts';
import { openBankingClient } from '../support/openbanking-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/** What the agent and user tests share: a platform of their own with two enrolled agents. */

export type Agent = { agentId: string; agentHash: string; publicHash: string };

export async function startAgentsPlatform(): Promise<{
  platform: TestPlatform;
  call: ObCall;
  agent: Agent;
  otherAgent: Agent;
}> {
  const platform = await startTestPlatform();
  const call = openBankingClient(platform.openBanking.url);
  const agent = await platform.openBanking.createAgent('Agent A');
  const otherAgent = await platform.openBanking.createAgent('Agent B');
  return { platform, call, agent, otherAgent };
}

/** The fields an error names. */
export const fieldsOf = (body: Partial<ErrorBody>) => body.error?.fields?.map((field) => field.field) ?? [];
