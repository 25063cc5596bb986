import { NotFoundError } from '../../core/errors.ts';
import { errorResponse } from '../../http/errors.ts';
import type { FrontDoor } from '../../http/front-door.ts';
import { streamJsonEvents } from '../../http/json-event-stream.ts';
import { routeFor } from '../../http/route-method.ts';
import { AgUiEvents } from './ag-ui-events.ts';
import { readAgUiRun } from './run-input.ts';

const PATH = '/ui/ag-ui';

/**
 * The AG-UI door: POST /ui/ag-ui runs an AG-UI agent (HttpAgent's `url`, CopilotKit's runtime)
 * over the same turns as the native API, answering RunAgentInput with AG-UI events as
 * Server-Sent Events (ag-ui-events.ts). The thread is the conversation, readable and continued on
 * every other door. Errors before the run starts are the native JSON errors with their status.
 */
export const agUiFrontDoor: FrontDoor = {
  name: 'ag-ui',
  matches: (request) => request.path === PATH || request.path.startsWith(`${PATH}/`),
  async handle(request, services) {
    const path = request.path.replace(/\/+$/, '');
    if (path !== PATH) throw new NotFoundError('route_not_found', `There is no ${request.method} ${path}. The AG-UI door has POST ${PATH}.`);
    routeFor({ POST: 'run' }, request.method, path);
    const input = readAgUiRun(request, services.maxBodyBytes);
    const events = new AgUiEvents({ threadId: input.threadId, runId: input.runId });
    return streamJsonEvents((onEvent) => input.run(services.agent, onEvent), {
      // A structured answer is sent whole at the end (docs/structured-answers.md): a rejected one must not stream first.
      event: (event) => (input.structured && event.type === 'text-delta' ? [] : events.event(event)),
      result: (result) => events.result(result),
      failure: (response) => events.failure(response),
    }, { logger: services.logger, errorResponse, ...(services.heartbeatMs === undefined ? {} : { heartbeatMs: services.heartbeatMs }) });
  },
  errorResponse,
};
