/**
 * Reading and writing one provider's entry of a message's or call's provider data (ProviderData in
 * messages.ts). An adapter writes only under its own name and reads only its own entry back, so
 * another provider's data is never sent on: it stays on the message, untouched, for its writer.
 */
import type { JsonObject } from './json.ts';
import { isJsonObject } from './json.ts';
import type { ProviderData } from './messages.ts';

/** The provider's own entry, or undefined when it wrote none (or what is there is not an object). */
export function ownProviderData(holder: { providerData?: ProviderData } | undefined, providerName: string): JsonObject | undefined {
  const entry: unknown = holder?.providerData?.[providerName];
  return isJsonObject(entry) ? entry : undefined;
}

/**
 * `{ providerData: { [providerName]: data } }`, to spread into a reply or a call, leaving out the
 * fields that are undefined; nothing at all when no field is left, so a reply without provider data
 * has no `providerData` key.
 */
export function providerDataEntry(providerName: string, data: JsonObject): { providerData?: ProviderData } {
  // A plain loop: this runs for every reply and every tool call, and most have nothing to keep.
  let defined: JsonObject | undefined;
  for (const key of Object.keys(data)) {
    const value = data[key];
    if (value !== undefined) (defined ??= {})[key] = value;
  }
  return defined === undefined ? {} : { providerData: { [providerName]: defined } };
}
