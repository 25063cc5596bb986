import { ConfigError } from '../core/errors.ts';
import type { Environment } from './environment.ts';

const PLACEHOLDER = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A text that interpolation changes: it holds a `${VAR}`, a `${VAR:-default}` or a `$$`. */
export const PLACEHOLDER_TEST = new RegExp(PLACEHOLDER.source);

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string value of a parsed YAML tree (values only,
 * never keys, and after parsing, so an environment value can never change the document's shape).
 * `$$` is a literal `$`. An unset variable without a default is an error naming the key.
 */
export function interpolateEnvironment(value: unknown, environment: Environment, path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (match, name: string | undefined, fallback: string | undefined) => {
      if (match === '$$') return '$';
      const found = environment[name!];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(
        `${path || 'value'}: environment variable ${name} is not set (write \${${name}:-default} to give a default)`,
      );
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => interpolateEnvironment(item, environment, `${path}[${index}]`));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateEnvironment(item, environment, path ? `${path}.${key}` : key)]),
    );
  }
  return value;
}
