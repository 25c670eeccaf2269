/** SDK floor of the OpenAPI document function: it uses no AWS SDK, so its floor is an empty module. */
export {};
