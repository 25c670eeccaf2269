/**
 * Floor of the OpenAPI document function: it uses no AWS SDK, so its floor is what it cannot do without at
 * module load, the two committed documents compiled into the bundle, as its handler imports them.
 */
import dataset from '../../../openapi/dataset.json' with { type: 'json' };
import proxy from '../../../openapi/proxy.json' with { type: 'json' };

export const documents = { dataset, proxy };
