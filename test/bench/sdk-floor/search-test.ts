/**
 * SDK floor of the search (searchTest): the clients of shared/clients/dynamodb.ts and the commands the search sends
 * (GetItem of the knowledge base, BatchGetItem of chunks and counters, Query of postings, SearchVectors deployed).
 */
import { SearchVectorsCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';

export { documentClient, dynamoClient } from '#shared/clients/dynamodb';
// Exported so the bundle keeps them, as the function's bundle does.
export { BatchGetCommand, GetCommand, QueryCommand, SearchVectorsCommand };
