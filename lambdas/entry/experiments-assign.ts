import { createExperimentsAssignHandler } from '../handlers/experiments';
import { ExperimentCatalog } from '../services/experiment-catalog';
import { awsDeps } from './aws';

const deps = awsDeps(['experiments', 'assignments', 'identities', 'identitySink', 'experimentsCacheMs']);
export const handler = createExperimentsAssignHandler({ ...deps, catalog: new ExperimentCatalog(deps.experiments, deps.experimentsCacheMs) });
