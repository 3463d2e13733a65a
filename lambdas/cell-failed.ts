import { STEPS } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('CellFailed', STEPS.cellFailed);
