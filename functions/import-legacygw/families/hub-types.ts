/*
 * One Hub's and Done Hub's type numbers whose rows need more than "the key column is the key" (One Hub's
 * common/config/constants.go at the commit families/hub.ts names): shared by the keys and the settings readers.
 */

export const AZURE = 3;
export const BAIDU = 15;
export const ALI = 17;
export const XUNFEI = 18;
export const TENCENT = 23;
export const AZURE_SPEECH = 24;
export const GEMINI = 25;
export const BEDROCK = 32;
export const CLOUDFLARE = 35;
export const OLLAMA = 39;
export const HUNYUAN = 40;
export const VERTEX_AI = 42;
export const AZURE_V1 = 55;
// Done Hub's own.
export const GEMINI_CLI = 57;
export const CODEX = 59;
export const ANTIGRAVITY = 60;
export const VERTEX_AI_EXPRESS = 61;
export const BEDROCK_MESSAGES = 62;
