/** The rate-limit registry on AWS: API Gateway API keys and usage plans. Only the key create/delete functions import this. */
import { rateLimitsFromEnv } from '../adapters/apigw-rate-limits';
import type { Wiring } from './aws';

// The RATE_LIMIT_* variables were checked with the others (lambdas/lambda-env.ts); rateLimitsFromEnv reads them by the same names.
export const apiGatewayRateLimits: Wiring<'rateLimits'> = () => rateLimitsFromEnv();
