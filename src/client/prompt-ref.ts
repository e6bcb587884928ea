export { storePrompt } from '../store/prompt-content';
