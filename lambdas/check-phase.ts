import { checkPhase, type PhaseJob } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('CheckPhase', (event: { job: PhaseJob }, p) => checkPhase(event.job, p));
