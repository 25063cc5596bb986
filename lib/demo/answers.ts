/**
 * The offline demo model's wording: the calls it makes, the answer it writes from the demo MCP
 * server's results, and what it says when it has no rule for a question. Every text starts with
 * DEMO_PREFIX, so nobody takes the stand-in for a language model.
 */
import { MODEL_NOT_CONFIGURED } from '../core/errors.ts';
import { isJsonObject } from '../core/json.ts';
import type { Language } from './questions.ts';

export const DEMO_PREFIX = '[offline demo model] ';

/** A tool's result as the tool message carried it, under the demo server's name of the tool. */
export interface ToolResult {
  tool: string;
  content: string;
}

const CONDITIONS_IN_ENGLISH: Record<string, string> = {
  晴: 'sunny', 多云: 'cloudy', 阴: 'overcast', 小雨: 'light rain', 中雨: 'rain', 雷阵雨: 'thunderstorms', 雾: 'fog', 小雪: 'light snow',
};

export function callingText(language: Language, tools: string[]): string {
  const names = [...new Set(tools)].join(', ');
  return DEMO_PREFIX + (language === 'zh' ? `正在调用 ${names}……` : `Calling ${names}…`);
}

/** One line per result, worded from the demo server's JSON; anything else (an error) quoted. */
export function answerText(language: Language, results: ToolResult[]): string {
  const lines = results.map((result) => resultLine(language, result));
  return DEMO_PREFIX + lines.join('\n');
}

/** When a question asks for the weather but names no city the rules know. */
export function whichCityText(language: Language): string {
  return DEMO_PREFIX + (language === 'zh'
    ? '想查哪个城市的天气？例如：上海天气怎么样？'
    : 'Which city? For example: What is the weather in Shanghai?');
}

/** A tool the rule needs is not offered (agent.yml without the demo server, or a policy). */
export function missingToolText(language: Language, tool: string): string {
  return DEMO_PREFIX + (language === 'zh'
    ? `需要的工具 ${tool} 没有提供（agent.yml 里没有配置演示 MCP 服务器？）。`
    : `The tool ${tool} is not offered (is the demo MCP server configured in agent.yml?).`);
}

/** A list of the tools offered, for "which functions can you call?". */
export function toolListText(language: Language, tools: Array<{ name: string; description: string }>): string {
  const list = tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n');
  return DEMO_PREFIX + (language === 'zh' ? `我可以调用这些工具：\n${list}` : `I can call these tools:\n${list}`);
}

/** Everything else: what the stand-in can do, and how to configure a real model. */
export function noRuleText(): string {
  return (
    DEMO_PREFIX +
    'This is the offline stand-in, not a language model: it only knows a few questions, such as ' +
    '"上海天气怎么样？", "What is the weather in Paris?", "有哪些科技新闻？" and "取消订单 ORD20250514118567". ' +
    MODEL_NOT_CONFIGURED
  );
}

function resultLine(language: Language, result: ToolResult): string {
  let value: unknown;
  try {
    value = JSON.parse(result.content);
  } catch {
    value = undefined;
  }
  const worded = isJsonObject(value) ? wordResult(language, result.tool, value) : undefined;
  if (worded !== undefined) return worded;
  return language === 'zh' ? `${result.tool} 没有成功：${result.content}` : `${result.tool} did not succeed: ${result.content}`;
}

function wordResult(language: Language, tool: string, value: Record<string, unknown>): string | undefined {
  switch (tool) {
    case 'getWeather': {
      const { city, condition, temperatureC, humidity } = value;
      if (typeof city !== 'string' || typeof condition !== 'string') return undefined;
      return language === 'zh'
        ? `${city}：${condition}，${temperatureC}°C，湿度 ${humidity}%。`
        : `${city}: ${CONDITIONS_IN_ENGLISH[condition] ?? condition}, ${temperatureC}°C, humidity ${humidity}%.`;
    }
    case 'getNews': {
      if (!Array.isArray(value['news'])) return undefined;
      const [colon, separator, none] = language === 'zh' ? ['：', '；', '暂无'] : [': ', '; ', 'none'];
      return (value['news'] as Array<{ category?: string; headlines?: string[] }>)
        .map((entry) => `${entry.category ?? '?'}${colon}${(entry.headlines ?? []).join(separator) || none}`)
        .join('\n');
    }
    case 'batchCancelOrdersByOrderNo': {
      const success = Array.isArray(value['success']) ? (value['success'] as string[]) : [];
      const fail = Array.isArray(value['fail']) ? (value['fail'] as Array<{ orderNo: string; reason: string }>) : [];
      const failed = fail.map((entry) => (language === 'zh' ? `${entry.orderNo}（${entry.reason}）` : `${entry.orderNo} (${entry.reason})`)).join(language === 'zh' ? '，' : ', ');
      const parts = language === 'zh'
        ? [success.length > 0 ? `已取消订单 ${success.join('，')}。` : '', failed ? `未能取消：${failed}。` : '']
        : [success.length > 0 ? `Cancelled ${success.join(', ')}.` : '', failed ? `Not cancelled: ${failed}.` : ''];
      return parts.filter(Boolean).join(' ') || undefined;
    }
    default:
      return `${tool}: ${JSON.stringify(value)}`;
  }
}
