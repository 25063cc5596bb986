/**
 * The demo tools of the original request, with its names, descriptions and JSON Schemas verbatim,
 * and deterministic answers so local runs and tests are repeatable. Inputs are checked here (the
 * low-level MCP Server does not validate), and bad input is answered with a message naming the
 * field, as a real server would, so the model can correct its call.
 */
import { createHash } from 'node:crypto';

interface DemoTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required: string[] };
  /** Told truthfully, so `requireApproval: destructive` asks before cancelling orders and not before reading the weather. */
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

type DemoToolAnswer = { ok: true; value: unknown } | { ok: false; error: string };

export const DEMO_TOOLS: DemoTool[] = [
  {
    name: 'foo',
    description: '测试方法',
    inputSchema: {
      type: 'object',
      properties: {
        categorys: { type: 'array', description: '参数1', items: { type: 'integer' } },
        name: { type: 'string', description: '参数2' },
        count: { type: 'integer', description: '参数3' },
      },
      required: ['categorys', 'name', 'count'],
    },
  },
  {
    name: 'getWeather',
    description: '获取天气信息',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', description: '城市名称' } },
      required: ['city'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'getNews',
    description: '获取新闻信息',
    inputSchema: {
      type: 'object',
      properties: { categorys: { type: 'array', description: '多个新闻类别ID', items: { type: 'integer' } } },
      required: ['categorys'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'batchCancelOrdersByOrderNo',
    description: '根据订单号批量取消订单',
    inputSchema: {
      type: 'object',
      properties: { orderNos: { type: 'array', description: '订单号列表', items: { type: 'string' } } },
      required: ['orderNos'],
    },
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
];

const ALREADY_CANCELLED_REASON = '订单状态已经为取消状态';

const WEATHER_CONDITIONS = ['晴', '多云', '阴', '小雨', '中雨', '雷阵雨', '雾', '小雪'];

const NEWS_BY_CATEGORY: Record<number, { category: string; headlines: string[] }> = {
  1: { category: '科技', headlines: ['国产大模型发布新版本，推理能力显著提升', '新一代芯片量产，能效比提高三成'] },
  2: { category: '财经', headlines: ['央行公布最新货币政策报告', '多家银行下调存款利率'] },
  3: { category: '体育', headlines: ['国家队在亚洲杯预选赛中取胜', '城市马拉松报名人数创新高'] },
  4: { category: '娱乐', headlines: ['暑期档电影票房突破百亿', '经典老歌重新编曲登上音乐榜首'] },
  5: { category: '国际', headlines: ['多国领导人出席气候峰会', '国际航线客运量恢复至疫情前水平'] },
};

export function runDemoTool(name: string, args: Record<string, unknown>): DemoToolAnswer {
  const tool = DEMO_TOOLS.find((candidate) => candidate.name === name);
  if (!tool) return { ok: false, error: `Unknown tool "${name}". Available tools: ${DEMO_TOOLS.map((t) => t.name).join(', ')}.` };
  const problems = validate(tool, args);
  if (problems.length > 0) return { ok: false, error: `Invalid arguments for ${name}: ${problems.join('; ')}.` };
  switch (name) {
    case 'foo':
      return { ok: true, value: { categorys: args['categorys'], name: args['name'], count: args['count'] } };
    case 'getWeather':
      return { ok: true, value: weatherFor(args['city'] as string) };
    case 'getNews':
      return { ok: true, value: { news: (args['categorys'] as number[]).map(newsFor) } };
    default:
      return { ok: true, value: cancelOrders(args['orderNos'] as string[]) };
  }
}

/** The same city always gets the same weather: a hash of its name picks every figure. */
export function weatherFor(city: string) {
  const digest = createHash('sha256').update(city).digest();
  return {
    city,
    condition: WEATHER_CONDITIONS[digest[0]! % WEATHER_CONDITIONS.length]!,
    temperatureC: (digest[1]! % 41) - 5,
    humidity: 30 + (digest[2]! % 61),
  };
}

export function newsFor(categoryId: number) {
  const known = NEWS_BY_CATEGORY[categoryId];
  return known ? { categoryId, ...known } : { categoryId, category: '未知类别', headlines: [] as string[] };
}

/** An order number ending in an even digit counts as already cancelled (ORD20250514118566 fails). */
export function cancelOrders(orderNos: string[]) {
  const success: string[] = [];
  const fail: { orderNo: string; reason: string }[] = [];
  for (const orderNo of orderNos) {
    const lastDigit = Number(orderNo.at(-1));
    if (Number.isInteger(lastDigit) && lastDigit % 2 === 0) fail.push({ orderNo, reason: ALREADY_CANCELLED_REASON });
    else success.push(orderNo);
  }
  return { success, fail };
}

/** Just enough JSON Schema for these four tools: required fields, types, array items, extras. */
function validate(tool: DemoTool, args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const field of tool.inputSchema.required) {
    if (!(field in args)) problems.push(`"${field}" is required (${describe(tool.inputSchema.properties[field])})`);
  }
  for (const [field, value] of Object.entries(args)) {
    const schema = tool.inputSchema.properties[field];
    if (!schema) problems.push(`"${field}" is not a parameter of ${tool.name}`);
    else if (!matches(schema, value)) problems.push(`"${field}" must be ${describe(schema)}`);
  }
  return problems;
}

type FieldSchema = { type?: string; items?: FieldSchema };

function matches(schema: FieldSchema, value: unknown): boolean {
  switch (schema.type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value) && value.every((item) => !schema.items || matches(schema.items, item));
    default:
      return true;
  }
}

function describe(schema: FieldSchema | undefined): string {
  if (!schema) return 'a value';
  if (schema.type === 'array') return `an array of ${schema.items?.type ?? 'value'}s`;
  return schema.type === 'integer' ? 'an integer' : `a ${schema.type ?? 'value'}`;
}
