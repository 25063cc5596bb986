// A namespace import, as everywhere in this project: zod's named export `z` is an object that
// esbuild must keep whole, and with it every one of zod's locales (260 KB of each Lambda bundle).
import * as z from 'zod';

/**
 * The shape of agent.yml, and the one place its defaults live: the typed configuration is derived
 * from this schema (lib/config/load.ts), never written twice. Every object is strict: an unknown
 * key is an error, not a silent no-op, because a misspelt `maxRound` that is ignored is worse than
 * a service that does not start. Adding a setting means: a key here, its consumer, its row in docs/configuration.md.
 */

/** The fixed system prompt of the original request. */
export const DEFAULT_SYSTEM_PROMPT =
  '你是一个智能助手，需要得到用户想要的最终回复时才停止调用function，否则你需要持续响应function_call JSON与function API交互。';

/** plan-execute: the planner's part of the system prompt. */
const DEFAULT_PLANNER_PROMPT = `## Planning
You plan; others carry out the plan. Break the user's request into the fewest tasks that get it done (at most the number the planning tool allows), in the order they must run, and write them with the planning tool (action "create"). Each task is one clear instruction another assistant can carry out with the tools alone; put what it needs to know in its details. Mark a task "independent" when it needs nothing from the tasks before it. Do not carry out the tasks yourself. When the plan is written, reply with one short sentence.
When you are shown the progress of a plan: if the remaining tasks still fit, reply "continue"; otherwise change them with the planning tool ("update" replaces the tasks not started yet, "mark_task" blocks one that cannot be done), then reply with one short sentence.`;

/** plan-execute: an executor's part of the system prompt. */
const DEFAULT_EXECUTOR_PROMPT = `## Your task
You carry out one task of a larger plan. Use the tools to do exactly this task, nothing more. When it is done (or cannot be done), reply with the result in a few sentences: the facts, ids and numbers the next tasks and the final answer need, and anything that failed.`;

/** plan-execute: the part of the system prompt that writes the final answer. */
const DEFAULT_SUMMARY_PROMPT = `## Final answer
The user's request was worked on as a plan of tasks; their results are below. Write the answer to the user from them: what was done, what was found, and what failed or was not done. Do not invent results that are not there.`;

/** reflection: what the critique of an answer checks. */
const DEFAULT_CRITIQUE_PROMPT = `Review the answer you just gave, as a strict reviewer. Check it against the user's question and the tool results above: is every fact, name and number backed by a tool result or the conversation; does it answer all of the question; is anything wrong, missing or unclear? List the problems briefly. Do not write a new answer.`;

/** reflection: how a revision is asked for. */
const DEFAULT_REVISE_PROMPT = `Write your answer again, fixing the problems the review found. Use only what the tool results and the conversation support. Reply with the new answer only, written for the user.`;

/** reflexion: how the reflection on a failed trial is asked for. */
const DEFAULT_REFLECT_PROMPT = `Your attempt above did not succeed. In two or three sentences, say why it failed and what you will do differently on the next attempt (which tools, which arguments, which order). Write it as a lesson that would help with similar questions later. Reply with the lesson only.`;

/** history.strategy summarize: the instructions of the call that writes the summary of older turns. */
export const DEFAULT_HISTORY_SUMMARY_PROMPT = `You keep the running summary of a conversation between a user and an assistant that uses tools. You get the summary so far (it may be empty) and the turns that follow it; write the summary that replaces both.
Keep what later turns may need: the user's goals, preferences and decisions; facts, names, ids, numbers and dates found with the tools; what was done, what failed, and what is still open. Leave out greetings, small talk and details that no longer matter. Write plain notes in the conversation's language. Reply with the summary only.`;

/**
 * The model name (model.name or LLM_MODEL) that selects the offline stand-in, lib/demo/model.ts:
 * a few rules instead of a language model, and the default of `npm start` when no model is
 * configured (never of a deployed stack).
 */
export const DEMO_MODEL_NAME = 'demo';

/**
 * `${VAR}` always yields text, so numbers and booleans also accept their plain text form
 * (`maxRounds: ${MAX_ROUNDS:-8}`); anything else still fails with "expected number".
 */
const fromText = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return value;
};
const numeric = <Schema extends z.ZodNumber>(schema: Schema) => z.preprocess(fromText, schema);
const boolean = () => z.preprocess(fromText, z.boolean());
const positiveInt = () => numeric(z.number().int().positive());
const positiveSeconds = () => numeric(z.number().positive());
const seconds = () => numeric(z.number().min(0));
const stringMap = () => z.record(z.string(), z.string());
/** An option `true` turns on with its defaults, an object of its settings turns on with those, and `false` or nothing leaves off. */
const switchable = <Shape extends z.ZodRawShape>(shape: Shape, settings: string) =>
  z.preprocess(
    (value) => {
      const plain = fromText(value);
      return plain === undefined || plain === false ? { enabled: false } : plain === true ? {} : plain;
    },
    z.strictObject({ enabled: boolean().default(true), ...shape }, { error: (issue) => (issue.code === 'invalid_type' ? `expected true, false, or settings (${settings})` : undefined) }),
  );

/** A tool name pattern as the server lists the name: `*` any run of characters, `?` one character. */
const toolPattern = z.string().min(1, 'a tool pattern must not be empty');

/** Who serves the model: an OpenAI-compatible endpoint, Amazon Bedrock (Converse), or the offline stand-in. */
export const MODEL_PROVIDERS = ['openai', 'bedrock', 'demo'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

/** The model each provider uses when none is named; Bedrock has none: its models are the account's choice. */
export const DEFAULT_MODEL_NAMES: Readonly<Record<ModelProviderName, string | undefined>> = { openai: 'gpt-4o-mini', bedrock: undefined, demo: 'demo' };

const modelSchema = z.strictObject({
  /** LLM_PROVIDER overrides. */
  provider: z.enum(MODEL_PROVIDERS).default('openai'),
  /**
   * `demo` (DEMO_MODEL_NAME) selects the offline stand-in instead of an endpoint. Default per
   * provider (DEFAULT_MODEL_NAMES); for Bedrock a model id, an inference profile id or an ARN.
   */
  name: z.string().min(1).optional(),
  /** bedrock, and openai with auth sigv4: the region of the Bedrock endpoint; default AWS_REGION. */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as us-east-1').optional(),
  /** bedrock: cachePoint blocks after the system prompt and the tools, for models with prompt caching. */
  promptCache: boolean().default(false),
  /** bedrock: a guardrail applied to every model call (guardrailConfig). */
  guardrail: z
    .strictObject({
      id: z.string().min(1),
      version: z.preprocess((value) => (typeof value === 'number' ? String(value) : value), z.string().min(1)),
      trace: z.enum(['enabled', 'disabled', 'enabled_full']).default('disabled'),
    })
    .optional(),
  /** bedrock: extended thinking (Anthropic models): the tokens the model may reason with per call. */
  reasoningBudgetTokens: numeric(z.number().int().min(1024)).optional(),
  /** Defaults to OpenAI's endpoint (lib/config/load.ts); OPENAI_BASE_URL overrides. */
  baseURL: z.url().optional(),
  apiKey: z.string().optional(),
  /**
   * openai: how requests prove who sends them. `key`: the API key as a bearer token. `sigv4`:
   * signed with SigV4 by the default AWS credential chain, for Bedrock's OpenAI-compatible
   * endpoints (baseURL bedrock-runtime's `/openai/v1` or the Mantle endpoint; region as for bedrock).
   */
  auth: z.enum(['key', 'sigv4']).default('key'),
  temperature: numeric(z.number().min(0).max(2)).default(0.7),
  /** Sent as `max_tokens` only when set: some models (OpenAI reasoning models) reject it. */
  maxTokens: positiveInt().optional(),
  /** Per model call, retries included. */
  timeoutSeconds: positiveSeconds().default(60),
  maxRetries: numeric(z.number().int().min(0).max(10)).default(2),
  /**
   * Read tool calls that a server without a tool-call parser wrote into `content` (hermes
   * `<tool_call>`, Qwen3-Coder XML, Llama python tags, bare JSON). Off: such text stays text.
   */
  textToolCalls: boolean().default(false),
  /**
   * The model accepts images: image content of a tool result is also sent to it as image parts of
   * a user message after the round's tool messages (the tool message keeps its text description).
   */
  imageResults: boolean().default(false),
});

/**
 * `decline` every elicitation; `defaults`: accept with the schema's default values when every
 * required field has one, else decline; `ask`: pause the turn and ask the caller (the call runs
 * again with the answer).
 */
const elicitationPolicy = z.enum(['decline', 'defaults', 'ask']);

const toolsSchema = z.strictObject({
  /** How long a call may go without an answer, or (when its server reports progress) without progress. */
  callTimeoutSeconds: positiveSeconds().default(30),
  /** The longest a call whose server keeps reporting progress may run in all (never less than callTimeoutSeconds). */
  maxCallSeconds: positiveSeconds().default(300),
  /** A tool result longer than this is cut, with a note saying so, before the model sees it. */
  maxOutputChars: positiveInt().default(16_000),
  /**
   * The tool output one turn carries, all its results together: every round re-sends them, so past
   * this the results that follow are cut (to nothing, when it is used up), with a note saying so.
   */
  maxTurnOutputChars: positiveInt().default(64_000),
  /** A result larger than this is cut off while it arrives, and only that call fails. */
  maxResultBytes: positiveInt().default(1024 * 1024),
  catalogTtlSeconds: seconds().default(300),
  connectTimeoutSeconds: positiveSeconds().default(15),
  /**
   * A server that failed is reconnected in the background: at once after a working session broke,
   * then after 1 s, 2 s, 4 s, ... up to this long between attempts.
   */
  reconnectMaxDelaySeconds: positiveSeconds().default(30),
  /** What to answer a server's elicitation (a question for the user), unless its entry says otherwise. */
  elicitation: elicitationPolicy.default('decline'),
  /** Calls of one model reply beyond this are answered "not executed". */
  maxCallsPerRound: positiveInt().default(16),
  /** Calls of one turn beyond this are answered "not executed". */
  maxCallsPerTurn: positiveInt().default(64),
  /** Calls of one round running at once; the rest wait their turn. */
  maxConcurrentCalls: positiveInt().default(8),
  /**
   * How a large catalog reaches the model: `all` tools every round, `search` (a search_tools tool),
   * `single` (one mcp_query tool), or `auto`: all up to maxOffered tools, search above.
   */
  routing: z.enum(['auto', 'all', 'search', 'single']).default('auto'),
  /** OpenAI's limit on `tools` in one request. */
  maxOffered: positiveInt().default(128),
});

/** A filesystem root offered to a server: an absolute path, a path relative to agent.yml, or a file:// URI. */
const rootEntry = z.string().min(1, 'a root must not be empty').refine(
  (value) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || value.startsWith('file://'),
  'a root is a path or a file:// URI',
);

/** What the service offers a server as an MCP client (roots, elicitation, sampling, resource reads). */
const clientFeatureFields = {
  /** Declares the roots capability and answers roots/list with these; none: not declared. */
  roots: z.array(rootEntry).optional(),
  /**
   * The model may read this server's resources (resources/read) with the built-in read_resource
   * tool: `true` every URI, or a list of URI patterns (`*` any run of characters); off by default.
   */
  readResources: z.preprocess(fromText, z.union([z.boolean(), z.array(z.string().min(1, 'a URI pattern must not be empty'))])).default(false),
  /** Overrides tools.elicitation for this server. */
  elicitation: elicitationPolicy.optional(),
  /**
   * Lets this server ask the agent's model for completions (sampling/createMessage): `true`
   * answered at once, `ask` each request approved by a person first (the turn pauses); off by default.
   */
  sampling: z.preprocess(fromText, z.union([z.boolean(), z.literal('ask')])).default(false),
};

/** What is offered and what needs a person's approval, per MCP server. */
const toolPolicyFields = {
  /** Only tools matching one of these are offered (default: all). */
  allowTools: z.array(toolPattern).optional(),
  /** Tools matching one of these are never offered, even when allowed. */
  denyTools: z.array(toolPattern).default([]),
  /**
   * `never` (default), `always`, `destructive` (unless the server marks the tool `readOnlyHint:
   * true` or `destructiveHint: false`), or a list of tool patterns.
   */
  requireApproval: z.union([z.enum(['never', 'always', 'destructive']), z.array(toolPattern)]).default('never'),
};

export const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: stringMap().default({}),
  cwd: z.string().optional(),
  ...toolPolicyFields,
  ...clientFeatureFields,
});

/** Signing algorithms a private key JWT (RFC 7523) may use; the key's type must fit. */
export const JWT_SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/**
 * OAuth 2.1 for a remote server, as the MCP authorization specification describes it. Secrets
 * (clientSecret, privateKey) may only be written as `${VAR}` (lib/config/secret-fields.ts checks
 * the file before interpolation); tokens live in the token store, never here.
 */
export const oauthSchema = z
  .strictObject({
    /**
     * `authorization_code`: a person authorizes once per server (`npm run mcp-login -- <server>`),
     * then refresh tokens keep it going; `client_credentials`: machine to machine, no person.
     */
    grant: z.enum(['authorization_code', 'client_credentials']).default('authorization_code'),
    /** A pre-registered client. Without it: a client ID metadata document (clientMetadataUrl), else dynamic registration. */
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    /** PEM (PKCS#8) for private_key_jwt; `\n` escapes are read as line breaks, for keys kept in one-line variables. */
    privateKey: z.string().min(1).optional(),
    privateKeyAlgorithm: z.enum(JWT_SIGNING_ALGORITHMS).default('RS256'),
    /** The `kid` header of the client assertion, for authorization servers that hold several keys. */
    keyId: z.string().min(1).optional(),
    /** Chosen from the authorization server's metadata when absent (a private key means private_key_jwt). */
    tokenEndpointAuthMethod: z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']).optional(),
    /** Requested as they are; absent, the server's challenge, then its metadata's scopes_supported decide. */
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope is one word of printable ASCII')).optional(),
    /** An HTTPS URL serving this client's metadata document, used as client_id where the server supports it. */
    clientMetadataUrl: z
      .url()
      .refine((value) => /^https:\/\/[^/]+\/./.test(value), 'a client metadata document URL must be https with a path')
      .optional(),
    /** Where the authorization server sends the person back; mcp-login listens there (loopback only). */
    redirectUrl: z.url().default('http://localhost:8976/callback'),
    clientName: z.string().min(1).default('MCP agent service'),
    /**
     * The authorization server (issuer URL) the client credentials belong to: they are then never
     * presented to another one, whatever the MCP server advertises.
     */
    authorizationServer: z.url().optional(),
    /** An access token is renewed this long before it expires, so a request never carries a stale one. */
    refreshBeforeExpirySeconds: seconds().default(60),
  })
  .superRefine((oauth, context) => {
    const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    const method = oauth.tokenEndpointAuthMethod;
    if ((oauth.clientSecret || oauth.privateKey) && !oauth.clientId) problem('clientId', 'a client secret or private key needs the clientId it belongs to');
    if ((oauth.clientSecret || oauth.privateKey) && !oauth.authorizationServer) {
      problem('authorizationServer', `a ${oauth.clientSecret ? 'client secret' : 'private key'} is only ever presented to the authorization server named here: set it to that server's issuer URL (never to whatever the MCP server advertises)`);
    }
    if (oauth.clientSecret && oauth.privateKey) problem('privateKey', 'give either clientSecret or privateKey, not both');
    if (oauth.privateKey && method && method !== 'private_key_jwt') problem('tokenEndpointAuthMethod', 'a private key is used with private_key_jwt');
    if (method === 'private_key_jwt' && !oauth.privateKey) problem('privateKey', 'private_key_jwt needs a privateKey');
    if (oauth.clientId && method?.startsWith('client_secret') && !oauth.clientSecret) problem('clientSecret', `${method} needs a clientSecret`);
    if (oauth.grant === 'client_credentials') {
      if (!oauth.clientId) problem('clientId', 'client_credentials needs a pre-registered clientId');
      else if (!oauth.clientSecret && !oauth.privateKey) problem('clientSecret', 'client_credentials needs a clientSecret or a privateKey');
      if (oauth.clientMetadataUrl) problem('clientMetadataUrl', 'client metadata documents are for authorization_code clients');
    }
  });

export const remoteServerSchema = z.strictObject({
  type: z.enum(['http', 'sse']).optional(),
  url: z.url(),
  headers: stringMap().default({}),
  /** OAuth 2.1 (the MCP authorization specification): tokens are obtained, stored and refreshed for this server. */
  oauth: oauthSchema.optional(),
  ...toolPolicyFields,
  ...clientFeatureFields,
}).superRefine((server, context) => {
  // The transports let a configured header win over the OAuth token: the token would never be sent.
  const authorization = Object.keys(server.headers).find((name) => name.toLowerCase() === 'authorization');
  if (server.oauth && authorization) {
    context.addIssue({ code: 'custom', path: ['headers', authorization], message: 'an Authorization header cannot be combined with oauth, which sends its own' });
  }
});

/** The reflection strategies' settings (lib/strategies/reflection, docs/reflection.md). */
const reflectionSchema = z.strictObject({
  /** Self-Refine: after the answer, a critique of it and a revision, until the critique finds nothing to change. */
  selfRefine: boolean().default(false),
  /** Self-Refine: revisions at most (each costs two model calls: the critique and the revision). */
  maxRevisions: numeric(z.number().int().min(1).max(10)).default(2),
  /** What the critique checks (the verdict protocol is added after it). */
  critiquePrompt: z.string().min(1).default(DEFAULT_CRITIQUE_PROMPT),
  /** How the revision is asked for, after the critique. */
  revisePrompt: z.string().min(1).default(DEFAULT_REVISE_PROMPT),
  /** reflexion: trials at most, the first included. */
  maxTrials: numeric(z.number().int().min(1).max(10)).default(3),
  /** reflexion: model calls one trial may use (default: maxRounds shared evenly among the trials and their reflections). */
  trialRounds: positiveInt().optional(),
  /** reflexion: each trial's answer is critiqued, and one that does not answer the question is a failed trial (one model call each). */
  evaluate: boolean().default(true),
  /** reflexion: how the reflection on a failed trial is asked for. */
  reflectPrompt: z.string().min(1).default(DEFAULT_REFLECT_PROMPT),
  /** reflexion: lessons (kept reflections) quoted in front of a question, the most relevant first; 0 keeps none. */
  lessons: numeric(z.number().int().min(0).max(20)).default(3),
  /** Self-consistency: final answers asked for (the first included); the one most of them agree with is kept. */
  samples: numeric(z.number().int().min(1).max(10)).default(1),
  /** Self-consistency: a model call that picks among the samples instead of the vote. */
  judgePrompt: z.string().min(1).optional(),
});

export const fileSchema = z.strictObject({
  systemPrompt: z.string().min(1).default(DEFAULT_SYSTEM_PROMPT),
  /** Each model reply is one round; a turn stops after this many. */
  maxRounds: numeric(z.number().int().positive().max(100)).default(8),
  /** A built-in write_todos tool and its prompt: the model keeps a todo list while it works. */
  todoList: boolean().default(false),
  /**
   * `react`: the plain tool loop; `plan-execute`: a planner, an executor per task, and a summary;
   * `reflexion`: the loop, tried again after a reflection on why a trial failed (docs/reflection.md).
   */
  strategy: z.enum(['react', 'plan-execute', 'reflexion']).default('react'),
  /** Self-Refine, Reflexion and self-consistency (docs/reflection.md): react and reflexion only. */
  reflection: reflectionSchema.prefault({}),
  planner: z
    .strictObject({
      /** Tasks a plan may have. */
      maxTasks: positiveInt().default(5),
      /** Independent tasks that run at once (one at a time when any tool may need approval). */
      parallelTasks: positiveInt().default(3),
      /** Model calls each planning step may use (within maxRounds). */
      maxRounds: positiveInt().default(3),
      prompt: z.string().min(1).default(DEFAULT_PLANNER_PROMPT),
    })
    .prefault({}),
  executor: z
    .strictObject({
      /** Model calls each task may use (within maxRounds). */
      maxRounds: positiveInt().default(6),
      prompt: z.string().min(1).default(DEFAULT_EXECUTOR_PROMPT),
    })
    .prefault({}),
  summary: z.strictObject({ prompt: z.string().min(1).default(DEFAULT_SUMMARY_PROMPT) }).prefault({}),
  model: modelSchema.prefault({}),
  tools: toolsSchema.prefault({}),
  /**
   * Approval for the built-in tools (memory's remember and recall, write_todos, read_resource, the
   * routing tools, an embedding's own): a server's requireApproval values, plus `auto` (default):
   * the built-ins whose calls change what later conversations see (remember) need approval
   * whenever any server's tools may need it (its requireApproval is not `never`); the others none.
   */
  builtInTools: z
    .strictObject({
      requireApproval: z.union([z.enum(['auto', 'never', 'always', 'destructive']), z.array(toolPattern)]).default('auto'),
    })
    .prefault({}),
  /**
   * Who may call which tool with which arguments (docs/policies.md): `cedar`, a Cedar policy file,
   * decides every call (permit, forbid, `@approval("required")`); `schema`, a Cedar schema the
   * policies must validate against at start. Paths are relative to agent.yml.
   */
  toolPolicy: z
    .strictObject({
      cedar: z.string().min(1).optional(),
      schema: z.string().min(1).optional(),
    })
    .superRefine((policy, context) => {
      if (policy.schema !== undefined && policy.cedar === undefined) context.addIssue({ code: 'custom', path: ['schema'], message: 'needs toolPolicy.cedar: the schema validates those policies' });
    })
    .prefault({}),
  approvals: z
    .strictObject({
      /** Calls waiting for a decision longer than this are declined on the next request. */
      ttlSeconds: positiveSeconds().default(86_400),
    })
    .prefault({}),
  history: z
    .strictObject({
      /** Estimated tokens of earlier turns sent with a question (newest whole turns first). */
      maxTokens: numeric(z.number().int().min(0)).default(16_000),
      /**
       * `window`: the newest whole turns within maxTokens; `summarize`: the newest whole turns within
       * maxTokens less summary.maxTokens, after a summary of every turn before them.
       */
      strategy: z.enum(['window', 'summarize']).default('window'),
      summary: z
        .strictObject({
          /** Estimated tokens the summary may take, kept back from maxTokens for it. */
          maxTokens: positiveInt().default(1_000),
          prompt: z.string().min(1).default(DEFAULT_HISTORY_SUMMARY_PROMPT),
        })
        .prefault({}),
    })
    .superRefine((history, context) => {
      if (history.strategy === 'summarize' && history.summary.maxTokens >= history.maxTokens) {
        context.addIssue({ code: 'custom', path: ['summary', 'maxTokens'], message: `must be less than history.maxTokens (${history.maxTokens}) with strategy summarize: the kept turns get what the summary leaves` });
      }
    })
    .prefault({}),
  /**
   * Notes kept per owner across conversations (built-in remember and recall tools). `true` turns it
   * on with the defaults below; an object with settings turns it on with those.
   */
  memory: z.preprocess(
    (value) => {
      const plain = fromText(value);
      return plain === undefined || plain === false ? { enabled: false } : plain === true ? {} : plain;
    },
    z.strictObject({
      enabled: boolean().default(true),
      /** Notes one owner may keep; remember answers "memory is full" beyond. */
      maxNotes: numeric(z.number().int().positive().max(1_000)).default(100),
      /** Characters of one note. */
      maxNoteChars: numeric(z.number().int().positive().max(2_000)).default(500),
      /** Notes put in the system prompt of each turn (the best matches for the question, then the newest); 0: only recall reaches them. */
      promptNotes: numeric(z.number().int().min(0).max(50)).default(5),
    }, { error: (issue) => (issue.code === 'invalid_type' ? 'expected true, false, or settings (maxNotes, maxNoteChars, promptNotes)' : undefined) }),
  ),
  /**
   * The files of a conversation (a built-in file_tool: upload and get; docs/files.md). `true` turns
   * it on with the defaults below; an object with settings turns it on with those.
   */
  files: switchable({
    /** UTF-8 bytes one file may have; a larger upload is refused with a tool error. */
    maxBytes: numeric(z.number().int().positive().max(5 * 1024 * 1024)).default(1024 * 1024),
    /** Files one conversation may have; an upload of a new name beyond is refused. */
    maxFiles: numeric(z.number().int().positive().max(200)).default(50),
    /** Characters of a file `get` gives the model; a longer file is cut there, with a note saying so. */
    maxReadChars: numeric(z.number().int().positive().max(200_000)).default(20_000),
  }, 'maxBytes, maxFiles, maxReadChars'),
  /**
   * A built-in report_tool (JoyAgent's): one model call writes a Markdown, HTML or slide-deck
   * report from a task, the conversation's files and its tool results, saved as a file of the
   * conversation (needs `files` on; docs/files.md). `true` turns it on with the defaults below.
   */
  reports: switchable({
    /** Characters of files and tool results given to the report's model call (the newest first). */
    maxInputChars: numeric(z.number().int().positive().max(400_000)).default(60_000),
  }, 'maxInputChars'),
  /**
   * A built-in code_interpreter tool (docs/code-interpreter.md): the model writes Python for a task,
   * which runs in a sandbox (Pyodide in a worker thread) with the conversation's files. `true` turns
   * it on with the defaults below; an object with settings turns it on with those.
   */
  codeInterpreter: z.preprocess(
    (value) => {
      const plain = fromText(value);
      return plain === undefined || plain === false ? { enabled: false } : plain === true ? {} : plain;
    },
    z.strictObject({
      enabled: boolean().default(true),
      /** The longest the code may run (the interpreter's start apart); tools.callTimeoutSeconds must leave room for it. */
      timeoutSeconds: numeric(z.number().positive().max(900)).default(20),
      /** The Python heap: past it the code gets MemoryError. Count about 150 MB more per run for the worker itself. */
      maxMemoryMb: numeric(z.number().int().min(32).max(2048)).default(256),
      /**
       * Python packages beyond the standard library, loaded in every sandbox before the code runs:
       * wheel files (absolute, or relative to the working directory) or names of wheels placed in
       * Pyodide's folder with its pyodide-lock.json. Each adds to every run's start.
       */
      packages: z.array(z.string().min(1)).default([]),
    }, { error: (issue) => (issue.code === 'invalid_type' ? 'expected true, false, or settings (timeoutSeconds, maxMemoryMb, packages)' : undefined) }),
  ),
  /**
   * A built-in deep_search tool (JoyAgent's; docs/deep-search.md): a model call breaks the query
   * into sub-queries, each is searched with `tool` of MCP server `server`, the best results are read
   * (with `readTool`, when given), and a model call writes a summary citing the URLs it used.
   */
  deepSearch: switchable({
    /** The MCP server (a name under mcpServers) whose tools search and read; it and `tool` are required (checked with mcpServers when the agent is made). */
    server: z.string().min(1).optional(),
    /** Its search tool, as the server lists it: called with { [queryArgument]: a sub-query }. */
    tool: z.string().min(1).optional(),
    queryArgument: z.string().min(1).default('query'),
    /** Its tool that fetches a page, called with { [readArgument]: a result's URL }; without it only the results' snippets are used. */
    readTool: z.string().min(1).optional(),
    readArgument: z.string().min(1).default('url'),
    /** Sub-queries searched per deep_search call (more asked for are dropped). */
    maxSubQueries: numeric(z.number().int().positive().max(10)).default(3),
    /** Results kept per sub-query (the search tool's first ones, each URL once). */
    maxResults: numeric(z.number().int().positive().max(20)).default(5),
    /** Results read with readTool per call, the best of each sub-query first; 0: snippets only. */
    maxReads: numeric(z.number().int().min(0).max(10)).default(3),
    /** Characters of each page read given to the summary. */
    maxReadChars: numeric(z.number().int().positive().max(50_000)).default(4_000),
  }, 'server, tool, readTool, maxSubQueries, maxResults, maxReads, ...'),
  conversation: z
    .strictObject({
      /** Each stored turn expires this long after it was last written (the table's TTL). */
      ttlDays: positiveSeconds().default(30),
      /** CONVERSATIONS_TABLE overrides (the AWS stack sets it). */
      tableName: z.string().min(3).max(255).default('mcp-agent-conversations'),
      /** Each DynamoDB request must be answered within this long, or it is retried. */
      requestTimeoutSeconds: positiveSeconds().default(5),
      /** Opening a connection to DynamoDB must take no longer than this. */
      connectTimeoutSeconds: positiveSeconds().default(2),
      /**
       * While nothing of a request has run yet (no tool call), an unavailable store is waited for
       * this long, not for the turn's whole time, before the request is answered 503 with Retry-After.
       */
      unavailableWaitSeconds: positiveSeconds().default(5),
    })
    .prefault({}),
  turn: z
    .strictObject({
      /** Local runs and embedding code have no Lambda deadline: each turn gets this long. */
      timeoutSeconds: positiveSeconds().default(300),
      /** Time kept back at the end of a turn to store it. */
      reserveSeconds: seconds().default(3),
      /**
       * How long a running turn's claim (and its turn slot) holds without being renewed. The process
       * renews it while it lives (a third of the way through, unless a round record carried it), so
       * a process that died blocks its conversation for at most about this long. Keep it well above
       * the clock skew between machines and a DynamoDB write's worst latency.
       */
      leaseSeconds: numeric(z.number().min(1, 'a lease must be at least 1 s: it is renewed a third of the way through')).default(30),
      /** No claim lasts past the turn's deadline plus this: by then its process has surely stopped. */
      leaseMarginSeconds: seconds().default(10),
    })
    .prefault({}),
  /**
   * Budgets for a shared deployment. Tokens are prompt + completion tokens as the model reports
   * them, checked before every model call. A turn is bounded by default; 0 turns that off.
   */
  limits: z
    .strictObject({
      tokensPerTurn: numeric(z.number().int().min(0)).default(200_000).transform((tokens) => (tokens === 0 ? undefined : tokens)),
      tokensPerConversation: positiveInt().optional(),
      /** Per owner (the caller's identity; without authentication, all callers together) and UTC day. */
      tokensPerOwnerPerDay: positiveInt().optional(),
      /** Turns one owner runs at once, so no one holds all of the account's Lambda concurrency; 0: no limit. */
      concurrentTurnsPerOwner: numeric(z.number().int().min(0)).default(4),
    })
    .prefault({}),
  http: z
    .strictObject({
      maxBodyBytes: positiveInt().default(64 * 1024),
      maxMessageChars: positiveInt().default(16_000),
      /** Streaming responses send a comment this often, so proxies keep an idle connection open. */
      heartbeatSeconds: positiveSeconds().default(15),
    })
    .prefault({}),
  /** The OpenAI-compatible front door (GET /v1/models, POST /v1/chat/completions). */
  openaiApi: z
    .strictObject({
      /** The one model /v1/models lists; a chat completion naming another gets 404 model_not_found. */
      modelId: z.string().regex(/^[^\s]{1,128}$/, 'a model id is 1 to 128 characters without spaces').default('mcp-agent'),
      })
    .prefault({}),
  /** The doors for UI toolkits: the AI SDK UI message stream (POST /ui/ai-sdk/chat) and AG-UI (POST /ui/ag-ui); docs/ui-streams.md. */
  uiStreams: boolean().default(false),
  /**
   * The agent as an MCP server at /mcp (docs/mcp-server-door.md): one tool that asks it a question.
   * `true` turns it on with the defaults below; an object with settings turns it on with those.
   */
  mcpServerDoor: switchable({
    /** The tool's name as MCP clients list it. */
    toolName: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a tool name is 1 to 64 letters, digits, _ . -').default('ask'),
    /** What the calling model reads about the tool: say what this agent knows and can do. */
    toolDescription: z.string().min(1).max(4_000).default('Ask the agent a question. It answers with its tools; pass the conversationId of an earlier answer to continue that conversation.'),
    /** What the calling model reads about the `message` argument. */
    messageDescription: z.string().min(1).max(1_000).default('The question or task, in plain words.'),
    /** What the calling model reads about the `conversationId` argument. */
    conversationIdDescription: z.string().min(1).max(1_000).default('The conversationId of an earlier answer, to continue that conversation; omit it to start a new one.'),
  }, 'toolName, toolDescription, messageDescription, conversationIdDescription'),
  /**
   * The A2A front door (docs/a2a.md): the agent card at /.well-known/agent-card.json and JSON-RPC at
   * /a2a, for other agents. Off unless turned on; `true` serves it with the defaults below.
   */
  a2a: switchable(
    {
      /** The agent's name on its card. */
      name: z.string().min(1).max(200).default('mcp-agent'),
      description: z.string().min(1).default('An agent that answers questions and carries out tasks with the tools of its MCP servers.'),
      /**
       * The public base URL clients reach the service by (a custom domain), without a trailing slash;
       * the card's JSON-RPC URL is this and `/a2a`. Absent: the URL the card was fetched by.
       */
      url: z.url().optional(),
      /** What the card says the agent can do; absent: one skill, `ask`, described by `description`. */
      skills: z
        .array(
          z.strictObject({
            id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a skill id uses letters, digits, _ . - (at most 64)'),
            name: z.string().min(1),
            description: z.string().min(1),
            tags: z.array(z.string().min(1)).default([]),
            examples: z.array(z.string().min(1)).default([]),
          }),
        )
        .min(1, 'list at least one skill, or leave skills out for the default one')
        .optional(),
    },
    'name, description, url, skills',
  ),
  trace: z
    .strictObject({
      /**
       * Keep each turn's model requests and replies with the turn (the chat page's inspector, GET
       * /conversations/{id}/turns/{turn}/trace). On: it stays in the conversation's own item, read
       * only by its owner and deleted with it, unlike logs (logging.logPayloads).
       */
      enabled: boolean().default(true),
      /** The most a turn's trace may take in its stored item, as JSON; longer texts are cut, with a marker. */
      maxBytes: numeric(z.number().int().min(2048).max(131_072)).default(65_536),
      /** `full`: every text as sent; `none`: no texts (structure, ids, names, lengths, timings and usage only). */
      contents: z.enum(['full', 'none']).default('full'),
    })
    .prefault({}),
  logging: z
    .strictObject({
      level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
      /** Prompts, replies and tool payloads appear in logs only when this is on. */
      logPayloads: boolean().default(false),
    })
    .prefault({}),
  /** OpenTelemetry (docs/observability.md): exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  telemetry: z
    .strictObject({
      /** Messages, replies and tool arguments and results on the spans; off, spans carry names, ids, counts and timings only. */
      captureContent: boolean().default(false),
    })
    .prefault({}),
  /** Checked entry by entry in load.ts, so each gets the message of its own kind (stdio or remote). */
  mcpServers: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'server names use letters, digits, _ . -'), z.unknown()).default({}),
});

/** Keys of earlier versions, and what to write instead: named in the error, not just "unknown". */
export const RENAMED_KEYS: Readonly<Record<string, string>> = {
  'tools.retryFailedAfterSeconds':
    'a failed MCP server is now reconnected in the background with backoff; tools.reconnectMaxDelaySeconds (default 30) is the longest wait between attempts',
};

export type AgentFile = z.output<typeof fileSchema>;
export type OAuthSettings = z.output<typeof oauthSchema>;
export type ToolPolicy = Pick<z.output<typeof stdioServerSchema>, 'allowTools' | 'denyTools' | 'requireApproval'>;
export type BuiltInApprovalSetting = AgentFile['builtInTools']['requireApproval'];
