import * as z from 'zod';

/** A knowledge base's or folder's id as the API returns it: 24 lowercase hex characters (MongoDB ObjectId-shaped). */
export const datasetIdSchema = z
  .string()
  .regex(/^[0-9a-f]{24}$/)
  .meta({ description: '24 lowercase hex characters', examples: ['6740a1f2c3d4e5f6a7b8c9d0'] });
