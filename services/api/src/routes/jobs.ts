import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import { problems } from '../http/problem';
import { defineRoute, type Route } from '../http/route';

const JobId = Type.String({ pattern: '^[A-Za-z0-9:_-]{1,128}$', description: 'Job id as returned when it was scheduled.' });

const JobStatus = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.String({ description: 'waiting, active, delayed, completed or failed.' }),
  progress: Type.Unknown(),
  attempts: Type.Integer(),
  result: Type.Optional(Type.Unknown()),
  failedReason: Type.Optional(Type.String()),
});

/**
 * Background jobs as clients see them. `ping` exists to prove the API → queue → worker path end to
 * end (and to let operators check it in production); real job types arrive with their features.
 */
export function jobRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/jobs/ping',
      operationId: 'schedulePing',
      summary: 'Schedule a no-op job on the worker; its result echoes the message.',
      tags: ['jobs'],
      body: Type.Object({ message: Type.String({ maxLength: 200 }) }, { additionalProperties: false }),
      responses: { 202: { description: 'Scheduled.', schema: Type.Object({ id: Type.String() }) } },
      handler: async ({ body, res }) => {
        const id = await deps.jobs.enqueue('ping', { message: body.message, requestedAt: new Date().toISOString() });
        res.status(202).location(`/api/jobs/${encodeURIComponent(id)}`).json({ id });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/jobs/{id}',
      operationId: 'getJob',
      summary: 'State, progress and result of a scheduled job.',
      tags: ['jobs'],
      params: Type.Object({ id: JobId }),
      responses: { 200: { description: 'The job.', schema: JobStatus }, 404: { description: 'No such job (or it expired).' } },
      handler: async ({ params, res }) => {
        const status = await deps.jobs.status(params.id);
        if (!status) throw problems.notFound(`No job ${params.id}.`);
        res.json(status);
      },
    }),
  ];
}
