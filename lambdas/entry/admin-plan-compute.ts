import { createPlanHandler } from '../handlers/plan';
import { lambdaHandler } from './aws';
import { athenaPlanningBaselines } from './athena';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-plan-compute', createPlanHandler, {
  planningBaselines: athenaPlanningBaselines,
  ...adminSignIn,
});
