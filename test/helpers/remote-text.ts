/**
 * The openai-compatible text provider over the strict Chat Completions fake (test/fakes/openai-chat.ts):
 * `setReply(v)` sets what the fake's model answers next (an object sent as JSON text); no retries. The fake
 * closes after the calling file's tests.
 */
import { after } from "node:test";
import { openAiCompatibleAiText } from "../../src/providers/ai-text/openai-compatible.ts";
import { startFakeChat } from "../fakes/openai-chat.ts";

export async function remoteText() {
  const fake = await startFakeChat();
  after(() => fake.close());
  let reply: unknown;
  fake.reply = () => reply;
  const remote = openAiCompatibleAiText({
    baseUrl: fake.baseUrl,
    model: "gpt-4.1-mini",
    timeoutSeconds: 5,
    maxRetries: 0,
  });
  return {
    fake,
    remote,
    setReply: (v: unknown) => {
      reply = v;
    },
  };
}
