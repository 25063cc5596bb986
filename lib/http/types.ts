/** The HTTP contract, independent of API Gateway and of node:http (both adapt to these). */
export interface HttpRequest {
  method: string;
  /** The path without stage or query string, e.g. `/conversations/abc/messages`. */
  path: string;
  /**
   * What the client's URL has before `path`: API Gateway's stage (`/prod`) on its own host name;
   * absent when nothing does (npm start). For a door that writes absolute URLs of its own routes.
   */
  basePath?: string;
  /** The query string's parameters (the last value of a repeated one); absent when there is none. */
  query?: Record<string, string | undefined>;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: string | undefined;
  /** The caller's identity when authentication is on; conversations are scoped to it. */
  owner?: string;
  /** The claims API Gateway's authorizer verified for the caller (groups, tenant, …): the tool policy's principal attributes. */
  claims?: Record<string, unknown>;
  /** Epoch ms by which the response must be sent (the Lambda's remaining time). */
  deadlineAt?: number;
}

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}
