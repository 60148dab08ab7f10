import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { Agent } from 'undici';
import type { Harness } from './gateway-harness.js';
import { startThreeUpstreams, type ExtraConfig, type ThreeUpstreams } from './three-upstreams.js';

/**
 * The official SDKs pointed at a harness's gateway: only the base URL and the key change, as for
 * a real user. The dispatcher trusts the harness's CA; the SDKs never retry, so a test sees every
 * answer as the gateway gave it.
 */
export function trustingDispatcher(h: Harness): Agent {
  return new Agent({ connect: { ca: h.ca } });
}

export function openaiClient(h: Harness, apiKey: string, dispatcher: Agent): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: `${h.running.urls.gateway}/v1`,
    fetchOptions: { dispatcher } as never,
    maxRetries: 0,
  });
}

/** The Anthropic SDK sends x-api-key and anthropic-version itself. */
export function anthropicClient(h: Harness, apiKey: string, dispatcher: Agent): Anthropic {
  return new Anthropic({
    apiKey,
    baseURL: h.running.urls.gateway,
    fetchOptions: { dispatcher } as never,
    maxRetries: 0,
  });
}

/** startThreeUpstreams with one SDK client on its key; stop() closes the client's connections too. */
export interface ThreeUpstreamsWithSdk<C> extends ThreeUpstreams {
  client: C;
  dispatcher: Agent;
}

export function threeUpstreamsWithOpenAI(extra?: ExtraConfig): Promise<ThreeUpstreamsWithSdk<OpenAI>> {
  return withSdk(openaiClient, extra);
}

export function threeUpstreamsWithAnthropic(): Promise<ThreeUpstreamsWithSdk<Anthropic>> {
  return withSdk(anthropicClient);
}

async function withSdk<C>(
  client: (h: Harness, apiKey: string, dispatcher: Agent) => C,
  extra?: ExtraConfig,
): Promise<ThreeUpstreamsWithSdk<C>> {
  const env = await startThreeUpstreams(extra);
  const dispatcher = trustingDispatcher(env.h);
  return {
    ...env,
    client: client(env.h, env.key.key, dispatcher),
    dispatcher,
    async stop() {
      await dispatcher.close();
      await env.stop();
    },
  };
}
