/**
 * SDK floor of the relay functions (`/v1`, the channel test): the clients of shared/clients/dynamodb.ts (module scope),
 * the commands the routing core sends (the channel Scan, the health Query, UpdateItem and DeleteItem, the usage PutItem,
 * the channel test's GetItem), and Node's HTTP clients the upstream requests go through.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the functions' bundles do.
export { DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand };
// The relay keeps one keep-alive pool per execution environment.
export const agents = [new HttpAgent({ keepAlive: true }), new HttpsAgent({ keepAlive: true })];
