import { readFileSync } from 'node:fs';
import type { ToolDefinition } from '../../lib/core/ports/tools.ts';

/** The original request's exchange (ORIGINAL-REQUEST.md), the one source of its tool schemas in tests. */
export const originalExchange = JSON.parse(readFileSync(new URL('../fixtures/original-exchange.json', import.meta.url), 'utf8'));

/** `tools` of the original request, as the model sees them on the wire. */
export const originalWireTools: Array<{ type: 'function'; function: ToolDefinition }> = originalExchange.request.tools;

/** The same tools as ToolDefinitions: foo, getWeather, getNews, batchCancelOrdersByOrderNo. */
export const originalTools: ToolDefinition[] = originalWireTools.map((tool) => tool.function);

const byName = (name: string): ToolDefinition => originalTools.find((tool) => tool.name === name)!;
export const getWeather = byName('getWeather');
export const batchCancelOrdersByOrderNo = byName('batchCancelOrdersByOrderNo');
