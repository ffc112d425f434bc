import { createExperimentsConfigsHandler } from '../handlers/experiments';
import { ExperimentCatalog } from '../services/experiment-catalog';
import { awsDeps } from './aws';

const deps = awsDeps(['experiments', 'experimentsCacheMs']);
export const handler = createExperimentsConfigsHandler({ catalog: new ExperimentCatalog(deps.experiments, deps.experimentsCacheMs) });
