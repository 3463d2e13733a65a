import { janitor } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('Janitor', (_event: unknown, p) => janitor(p));
