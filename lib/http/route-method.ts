import { MethodNotAllowedError } from '../core/errors.ts';

/** The route of a path that exists: the method's, or 405 naming the methods it allows (its Allow header). */
export function routeFor<Route>(methods: Partial<Record<string, Route>>, method: string, path: string): Route {
  const route = methods[method.toUpperCase()];
  if (route) return route;
  const allowed = Object.keys(methods).join(', ');
  throw new MethodNotAllowedError(`${method} is not supported on ${path}; use ${allowed}.`, allowed);
}
