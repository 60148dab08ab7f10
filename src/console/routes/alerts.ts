import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import { listBody, paging } from '../schemas/paging.js';
import {
  AlertRuleParamsSchema,
  CreateAlertRuleBodySchema,
  FiredAlertsQuerySchema,
  MAX_ALERT_RULES,
  UpdateAlertRuleBodySchema,
  type CreateAlertRuleBody,
  type FiredAlertsQuery,
  type UpdateAlertRuleBody,
} from '../schemas/alerts.js';
import type { AlertDestination, AlertRule } from '../../store/alert-rules.js';
import { checkWebhookUrl, UnsafeTargetError, type TargetPolicy } from '../../server/address-guard.js';
import { alertObject } from '../../limits/alerts/alert-message.js';

const iso = (ms: number) => new Date(ms).toISOString();

function presentRule(rule: AlertRule) {
  return {
    object: 'alert_rule' as const,
    id: rule.id,
    organization_id: rule.organizationId,
    name: rule.name,
    target: rule.target,
    thresholds: rule.thresholds,
    destinations: rule.destinations,
    enabled: rule.enabled,
    created_at: iso(rule.createdAt),
    updated_at: iso(rule.updatedAt),
  };
}

/** Every destination URL passes the outbound address guard, as a webhook component's does. */
async function checkDestinations(destinations: readonly AlertDestination[], policy: TargetPolicy): Promise<void> {
  for (const [index, destination] of destinations.entries()) {
    try {
      await checkWebhookUrl(destination.url, policy);
    } catch (error) {
      if (error instanceof UnsafeTargetError)
        throw new ConsoleError(
          'invalid_request',
          `destinations[${index}].url ${error.message}.`,
          `destinations.${index}.url`,
        );
      throw error;
    }
  }
}

const ruleNotFound = () => new ConsoleError('not_found', 'No alert rule with that id in this organization.');

/**
 * Alert rules of an organization and the alerts they fired (docs/alerts.md, docs/console-api.md
 * "Alerts"). The rule's signing secret is in the creation answer only.
 */
export function registerAlertRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const alerts = services.alerts;
  if (!alerts) return;

  app.post<{ Params: Static<typeof OrgParamsSchema>; Body: CreateAlertRuleBody }>(
    '/v1/organizations/:orgId/alert_rules',
    {
      schema: {
        summary: 'Create an alert rule; its signing secret is shown in this answer only',
        tags: ['alerts'],
        params: OrgParamsSchema,
        body: CreateAlertRuleBodySchema,
      },
    },
    async (request, reply) => {
      const { orgId } = request.params;
      const body = request.body;
      if ((await alerts.rules.count(orgId)) >= MAX_ALERT_RULES)
        throw new ConsoleError('conflict', `An organization holds at most ${MAX_ALERT_RULES} alert rules.`);
      if (body.target.kind === 'key_ceiling') {
        const key = await services.apiKeys.get(orgId, body.target.api_key_id);
        if (!key)
          throw new ConsoleError(
            'invalid_request',
            'No API key with that id in this organization.',
            'target.api_key_id',
          );
      }
      await checkDestinations(body.destinations, alerts.targets);
      const { rule, secret } = await alerts.rules.create(orgId, body);
      alerts.rulesChanged?.(orgId);
      return reply.code(201).send({ ...presentRule(rule), signing_secret: secret });
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/alert_rules',
    { schema: { summary: "The organization's alert rules", tags: ['alerts'], params: OrgParamsSchema } },
    async (request) => {
      const { orgId } = request.params;
      const rules = await alerts.rules.list(orgId);
      return listBody(`/v1/organizations/${orgId}/alert_rules`, rules.map(presentRule), false);
    },
  );

  app.get<{ Params: Static<typeof AlertRuleParamsSchema> }>(
    '/v1/organizations/:orgId/alert_rules/:ruleId',
    { schema: { summary: 'One alert rule', tags: ['alerts'], params: AlertRuleParamsSchema } },
    async (request) => {
      const rule = await alerts.rules.get(request.params.orgId, request.params.ruleId);
      if (!rule) throw ruleNotFound();
      return presentRule(rule);
    },
  );

  app.post<{ Params: Static<typeof AlertRuleParamsSchema>; Body: UpdateAlertRuleBody }>(
    '/v1/organizations/:orgId/alert_rules/:ruleId',
    {
      schema: {
        summary: "Change an alert rule's name, thresholds, destinations or whether it is on",
        tags: ['alerts'],
        params: AlertRuleParamsSchema,
        body: UpdateAlertRuleBodySchema,
      },
    },
    async (request) => {
      const { orgId, ruleId } = request.params;
      if (!(await alerts.rules.get(orgId, ruleId))) throw ruleNotFound();
      if (request.body.destinations) await checkDestinations(request.body.destinations, alerts.targets);
      const rule = await alerts.rules.update(orgId, ruleId, request.body);
      alerts.rulesChanged?.(orgId);
      if (!rule) throw ruleNotFound();
      return presentRule(rule);
    },
  );

  app.delete<{ Params: Static<typeof AlertRuleParamsSchema> }>(
    '/v1/organizations/:orgId/alert_rules/:ruleId',
    {
      schema: {
        summary: 'Delete an alert rule and the alerts it fired',
        tags: ['alerts'],
        params: AlertRuleParamsSchema,
      },
    },
    async (request) => {
      const { orgId, ruleId } = request.params;
      if (!(await alerts.rules.delete(orgId, ruleId))) throw ruleNotFound();
      alerts.rulesChanged?.(orgId);
      return { object: 'alert_rule', id: ruleId, deleted: true };
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: FiredAlertsQuery }>(
    '/v1/organizations/:orgId/alerts',
    {
      schema: {
        summary: 'Fired alerts, newest first, with where their delivery stands',
        tags: ['alerts'],
        params: OrgParamsSchema,
        querystring: FiredAlertsQuerySchema,
      },
    },
    async (request) => {
      const { orgId } = request.params;
      const { limit, startingAfter } = paging(request.query);
      const page = await alerts.firings.page(orgId, limit, startingAfter, request.query.rule_id);
      const [states, rules] = await Promise.all([
        alerts.firings.deliveryStates(orgId, page.firings),
        alerts.rules.byIds([...new Set(page.firings.map((f) => f.ruleId))]),
      ]);
      const names = new Map(rules.map((rule) => [rule.id, rule.name]));
      const data = page.firings.map((firing) => ({
        ...alertObject(firing, names.get(firing.ruleId) ?? null),
        delivery: states.get(firing.id) ?? 'done',
      }));
      return listBody(`/v1/organizations/${orgId}/alerts`, data, page.hasMore);
    },
  );
}
