import { startPhase, type StartInput } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('StartCell', (event: StartInput, p) => startPhase('run', event, p));
