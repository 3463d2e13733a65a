import { startPhase, type StartInput } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('StartLoad', (event: StartInput, p) => startPhase('load', event, p));
