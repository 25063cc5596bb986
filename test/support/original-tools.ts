import type { ToolDefinition } from '../../lib/core/ports.ts';

/** Two of the original request's tools, with its schemas, for loop tests. */
export const getWeather: ToolDefinition = {
  name: 'getWeather',
  description: '获取天气信息',
  parameters: { type: 'object', properties: { city: { type: 'string', description: '城市名称' } }, required: ['city'] },
};

export const batchCancelOrdersByOrderNo: ToolDefinition = {
  name: 'batchCancelOrdersByOrderNo',
  description: '根据订单号批量取消订单',
  parameters: {
    type: 'object',
    properties: { orderNos: { type: 'array', description: '订单号列表', items: { type: 'string' } } },
    required: ['orderNos'],
  },
};
