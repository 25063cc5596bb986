/**
 * The Vercel AI SDK's agent doing the baseline's work (baseline-loop.ts), written as the AI SDK's
 * documentation writes one: an OpenAI-compatible provider (`@ai-sdk/openai-compatible`), the MCP
 * server's tools through the AI SDK's own MCP client (`@ai-sdk/mcp`, its stdio transport), and
 * `generateText` looping over tool calls until the model answers (`stopWhen: stepCountIs(maxRounds)`).
 * It sends the same requests (system prompt, history, the question, the tool, `tool_choice: auto`,
 * the temperature) and keeps each conversation's messages in a Map, as the baseline does.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import type { BaselineAgent, BaselineOptions } from './baseline-loop.ts';

export async function createAiSdkAgent(options: BaselineOptions): Promise<BaselineAgent> {
  const provider = createOpenAICompatible({ name: 'bench', baseURL: options.baseURL, apiKey: options.apiKey });
  const model = provider.chatModel(options.model);
  const mcp = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({ command: options.server.command, args: options.server.args, stderr: 'ignore' }),
  });
  const tools = await mcp.tools();
  const conversations = new Map<string, ModelMessage[]>();

  return {
    async ask(conversationId, question) {
      const history = conversations.get(conversationId) ?? [];
      const asked: ModelMessage[] = [...history, { role: 'user', content: question }];
      const result = await generateText({
        model,
        system: options.systemPrompt,
        messages: asked,
        tools,
        toolChoice: 'auto',
        temperature: options.temperature,
        // No retries: the baseline makes none either, and the model server never fails.
        maxRetries: 0,
        stopWhen: stepCountIs(options.maxRounds),
      });
      conversations.set(conversationId, [...asked, ...result.response.messages]);
      return result.text;
    },
    close: () => mcp.close(),
  };
}
