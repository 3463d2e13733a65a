import { teardown, type TeardownInput } from '../lib/core/pipeline';
import { stepHandler } from './shared/handler';

export const handler = stepHandler('Teardown', (event: TeardownInput, p) => teardown(event, p));
