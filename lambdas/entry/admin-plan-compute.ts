import { createPlanHandler } from '../handlers/plan';
import { lambdaHandler } from './aws';
import { athenaPlanningBaselines } from './athena';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-plan-compute', createPlanHandler, {
  planningBaselines: athenaPlanningBaselines,
  ...adminWiring,
});
