import { MonitorResolver } from '../../resolvers/monitor.resolver';
import {
  CreateMonitorRequest,
  MonitorCreatedShape,
  MonitorDeletedShape,
  MonitorIdRequest,
  MonitorListShape,
  MonitorShape,
  toMonitor,
  type MonitorView,
} from '../../services/monitors/monitors.contract';
import type { AnyRoute } from '../route';

const notFound = { description: "No such monitor (or another account's)", shape: 'error' } as const;

/** Monitors (an extension): POST/GET /v2/monitors, GET/DELETE /v2/monitors/{id}. */
export const MONITORS_ROUTES: AnyRoute[] = [
  {
    method: 'POST',
    path: '/v2/monitors',
    operationId: 'createMonitor',
    summary: 'Watch sites, technologies or categories and be called back on their changes (free)',
    description:
      'Every change an analysis records that matches the monitor (its sites, technologies or categories, and ' +
      'kinds: every field given narrows it) is POSTed to callbackUrl, one signed callback per site and analysis ' +
      'carrying all of its matching changes, retried until accepted (see the delivery log). The watched sites ' +
      'are re-analysed at least every recrawlDays, 5 credits per successful analysis (a failed one is free). ' +
      "At most the plan's monitors and watched domains (403 beyond).",
    tag: 'Monitors',
    request: CreateMonitorRequest,
    resolver: [MonitorResolver, 'createMonitor'],
    present: (monitor: MonitorView) => ({ status: 200, body: { id: monitor.id } }),
    responses: { 200: { description: 'The new monitor', shape: MonitorCreatedShape } },
  },
  {
    method: 'GET',
    path: '/v2/monitors',
    operationId: 'listMonitors',
    summary: 'The monitors of the account, oldest first (free)',
    tag: 'Monitors',
    resolver: [MonitorResolver, 'monitors'],
    present: (monitors: MonitorView[]) => ({ status: 200, body: { monitors: monitors.map(toMonitor) } }),
    responses: { 200: { description: 'The monitors', shape: MonitorListShape } },
  },
  {
    method: 'GET',
    path: '/v2/monitors/{id}',
    operationId: 'getMonitor',
    summary: 'One monitor (free)',
    tag: 'Monitors',
    request: MonitorIdRequest,
    pathParams: ['id'],
    resolver: [MonitorResolver, 'monitor'],
    present: (monitor: MonitorView) => ({ status: 200, body: toMonitor(monitor) }),
    responses: { 200: { description: 'The monitor', shape: MonitorShape }, 404: notFound },
  },
  {
    method: 'DELETE',
    path: '/v2/monitors/{id}',
    operationId: 'deleteMonitor',
    summary: 'Delete a monitor (free)',
    tag: 'Monitors',
    request: MonitorIdRequest,
    pathParams: ['id'],
    resolver: [MonitorResolver, 'deleteMonitor'],
    present: () => ({ status: 200, body: {} }),
    responses: { 200: { description: 'Empty object', shape: MonitorDeletedShape }, 404: notFound },
  },
];
